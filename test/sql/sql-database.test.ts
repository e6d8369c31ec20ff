import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SqlDatabase } from '../../src/sql';
import { SQL_ENGINES } from '../helpers/sql-engines';

describe.each(SQL_ENGINES)('SqlDatabase on $name', (engine) => {
  let dir: string;
  let db: SqlDatabase;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), `outpost-sql-${engine.name}-`));
    db = await engine.open(dir);
    // BIGINT: an integer column both engines read back as a number up to 2^53.
    const bytes = engine.name === 'postgres' ? 'BYTEA' : 'BLOB';
    await db.exec(`CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL, note TEXT, blob_value ${bytes})`);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('binds positional parameters and reads integers, text, null and Buffers back', async () => {
    const bytes = Buffer.from([0, 1, 2, 254, 255]);
    await db.run('INSERT INTO items (id, n, note, blob_value) VALUES (?, ?, ?, ?)', ['a', 2 ** 40, null, bytes]);
    await db.run('INSERT INTO items (id, n, note, blob_value) VALUES (?, ?, ?, ?)', ['b', -3, "it's", null]);
    const a = await db.get<{ id: string; n: number; note: string | null; blob_value: Buffer }>('SELECT * FROM items WHERE id = ?', ['a']);
    expect(a).toEqual({ id: 'a', n: 2 ** 40, note: null, blob_value: bytes });
    expect(Buffer.isBuffer(a!.blob_value)).toBe(true);
    expect(await db.all<{ id: string; note: string | null }>('SELECT id, note FROM items WHERE n < ? ORDER BY id', [0])).toEqual([{ id: 'b', note: "it's" }]);
    expect(await db.get('SELECT id FROM items WHERE id = ?', ['none'])).toBeUndefined();
    // A parameter is a value, never SQL.
    expect(await db.all('SELECT id FROM items WHERE id = ?', ["a' OR '1'='1"])).toEqual([]);
  });

  it('reports how many rows a write changed, and RETURNING rows through all()', async () => {
    await db.run('INSERT INTO items (id, n) VALUES (?, ?), (?, ?), (?, ?)', ['a', 1, 'b', 2, 'c', 3]);
    expect(await db.run('UPDATE items SET n = n + 1 WHERE n >= ?', [2])).toEqual({ changes: 2 });
    expect(await db.run('DELETE FROM items WHERE id = ?', ['none'])).toEqual({ changes: 0 });
    expect(await db.run('INSERT INTO items (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING', ['a', 9])).toEqual({ changes: 0 });
    expect(await db.all('UPDATE items SET n = n * 10 WHERE id = ? RETURNING n', ['c'])).toEqual([{ n: 40 }]);
  });

  it('commits a transaction that resolves, and rolls back one that throws, rethrowing its error', async () => {
    expect(await db.transaction(async (tx) => (await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['kept', 1])).changes)).toBe(1);
    const failure = new Error('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['dropped', 1]);
        await tx.run('UPDATE items SET n = 99 WHERE id = ?', ['kept']);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(await db.all('SELECT id, n FROM items ORDER BY id')).toEqual([{ id: 'kept', n: 1 }]);
    // A statement error inside rolls back the same way.
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['x', 1]);
        await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['x', 2]);
      }),
    ).rejects.toMatchObject({ code: expect.any(String) });
    expect(await db.get('SELECT id FROM items WHERE id = ?', ['x'])).toBeUndefined();
  });

  it('never runs a call made on the database inside an open transaction (it is not rolled back with it)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    const tx = db.transaction(async (t) => {
      await t.run('INSERT INTO items (id, n) VALUES (?, ?)', ['in-tx', 1]);
      wrote();
      await gate;
      throw new Error('roll back');
    });
    await written;
    const outside = db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['outside', 2]);
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await expect(tx).rejects.toThrow('roll back');
    expect(await outside).toEqual({ changes: 1 });
    expect(await db.all('SELECT id FROM items')).toEqual([{ id: 'outside' }]);
  });

  // SQLite only: one connection, so calls queue behind a transaction; PostgreSQL runs them on another connection.
  if (engine.name === 'sqlite') {
    it('SQLite only (one connection, calls queue): makes a call on the database wait while a transaction is open', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const order: string[] = [];
      const tx = db.transaction(async (t) => {
        await t.run('INSERT INTO items (id, n) VALUES (?, ?)', ['in-tx', 1]);
        order.push('tx wrote');
        await gate;
        throw new Error('roll back');
      });
      await new Promise((resolve) => setImmediate(resolve));
      // Issued while the transaction is open: it must neither see its write nor be rolled back with it.
      const outside = db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['outside', 2]).then((r) => {
        order.push('outside wrote');
        return r;
      });
      const seen = db.all<{ id: string }>('SELECT id FROM items ORDER BY id');
      await new Promise((resolve) => setImmediate(resolve));
      expect(order).toEqual(['tx wrote']);
      release();
      await expect(tx).rejects.toThrow('roll back');
      expect(await outside).toEqual({ changes: 1 });
      expect(order).toEqual(['tx wrote', 'outside wrote']);
      expect(await seen).toEqual([{ id: 'outside' }]);
      expect(await db.all('SELECT id FROM items')).toEqual([{ id: 'outside' }]);
    });
  }

  it('runs transactions one after the other, so a read-modify-write never loses an update', async () => {
    await db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['counter', 0]);
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          await tx.run('UPDATE items SET n = n WHERE id = ?', ['counter']);
          const row = await tx.get<{ n: number }>('SELECT n FROM items WHERE id = ?', ['counter']);
          await new Promise((resolve) => setImmediate(resolve));
          await tx.run('UPDATE items SET n = ? WHERE id = ?', [row!.n + 1, 'counter']);
        }),
      ),
    );
    expect(await db.get('SELECT n FROM items WHERE id = ?', ['counter'])).toEqual({ n: 20 });
  });

  it('waits for pending transactions before closing, and closing twice is harmless', async () => {
    const pending = db.transaction(async (tx) => {
      await new Promise((resolve) => setImmediate(resolve));
      await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['late', 1]);
    });
    await db.close();
    await pending;
    await db.close();
    db = await engine.open(dir);
    expect(await db.all('SELECT id FROM items')).toEqual([{ id: 'late' }]);
  });
});
