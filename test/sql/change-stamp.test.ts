/**
 * `SqlDatabase.changeStamp` (src/sql/open-sqlite-database.ts): it must move with every change
 * the tenant key cache could miss — this handle's own writes, another handle's commit in this
 * process, another process's commit — and stay put while only reads happen.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresDatabase, openSqliteDatabase, type SqlDatabase } from '../../src/sql';

describe('changeStamp on SQLite', () => {
  let dir: string;
  let file: string;
  let db: SqlDatabase;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-stamp-'));
    file = join(dir, 'db.sqlite');
    db = await openSqliteDatabase(file);
    await db.exec('CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL)');
    await db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['a', 1]);
  });
  afterEach(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const stamp = () => db.changeStamp!();

  it('stays put while only reads happen', async () => {
    const before = await stamp();
    await db.get('SELECT n FROM items WHERE id = ?', ['a']);
    await db.all('SELECT * FROM items');
    expect(await stamp()).toBe(before);
  });

  it("moves with each of this handle's own writes: run, a RETURNING read, a script, a transaction (even one rolled back)", async () => {
    const seen = new Set([await stamp()]);
    const moved = async () => {
      const now = await stamp();
      expect(seen.has(now)).toBe(false);
      seen.add(now);
    };
    await db.run('UPDATE items SET n = n + 1 WHERE id = ?', ['a']);
    await moved();
    await db.all('UPDATE items SET n = n + 1 WHERE id = ? RETURNING n', ['a']);
    await moved();
    await db.get('UPDATE items SET n = n + 1 WHERE id = ? RETURNING n', ['a']);
    await moved();
    await db.exec("UPDATE items SET n = 0 WHERE id = 'a'");
    await moved();
    await db.transaction((tx) => tx.run('UPDATE items SET n = 5 WHERE id = ?', ['a']));
    await moved();
    await expect(
      db.transaction(async (tx) => {
        await tx.run('UPDATE items SET n = 6 WHERE id = ?', ['a']);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    await moved();
  });

  it("moves with another handle's commit in this process", async () => {
    const before = await stamp();
    const other = await openSqliteDatabase(file, { fileMustExist: true });
    await other.run('UPDATE items SET n = 9 WHERE id = ?', ['a']);
    await other.close();
    expect(await stamp()).not.toBe(before);
  });

  it("moves with another process's commit (the tenants CLI's, say)", async () => {
    const before = await stamp();
    const script = `const D = require('better-sqlite3'); const d = new D(process.argv[1]); d.prepare("UPDATE items SET n = 7 WHERE id = 'a'").run(); d.close();`;
    execFileSync(process.execPath, ['-e', script, file], { cwd: join(__dirname, '..', '..') });
    expect(await stamp()).not.toBe(before);
    expect(await db.get('SELECT n FROM items WHERE id = ?', ['a'])).toEqual({ n: 7 });
  });
});

it('PostgreSQL offers no change stamp: nothing there may be cached on its word', () => {
  // The pool is lazy: nothing connects until a statement runs.
  const db = openPostgresDatabase('postgres://nobody@127.0.0.1:1/none');
  expect(db.changeStamp).toBeUndefined();
  return db.close();
});
