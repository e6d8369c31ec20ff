import { types } from 'pg';
import { isStorageUnavailable, openPostgresDatabase, type SqlDatabase } from '../../src/sql';
import { usePostgres } from '../helpers/postgres';

const pg = usePostgres();

/** Opens a pool on a fresh database; `after` closes it. */
const open: SqlDatabase[] = [];
async function freshDb(options: Parameters<typeof openPostgresDatabase>[1] = {}): Promise<SqlDatabase> {
  const db = openPostgresDatabase(await pg.freshDatabase(), options);
  open.push(db);
  return db;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => db.close()));
});

describe('openPostgresDatabase: statements', () => {
  it('binds ? placeholders in order and returns rows, the first row, or undefined', async () => {
    const db = await freshDb();
    expect(db.engine).toBe('postgres');
    await db.exec('CREATE TABLE t (a TEXT NOT NULL, b INTEGER NOT NULL); CREATE INDEX t_by_b ON t(b)');
    await db.run('INSERT INTO t (a, b) VALUES (?, ?), (?, ?)', ['x', 1, 'y', 2]);
    expect(await db.all('SELECT a, b FROM t WHERE b >= ? AND a <> ? ORDER BY b', [1, 'z'])).toEqual([
      { a: 'x', b: 1 },
      { a: 'y', b: 2 },
    ]);
    expect(await db.get('SELECT a FROM t WHERE b = ?', [2])).toEqual({ a: 'y' });
    expect(await db.get('SELECT a FROM t WHERE b = ?', [3])).toBeUndefined();
    expect(await db.all('SELECT a FROM t WHERE a = ?', [null])).toEqual([]);
  });

  it('returns BIGINT columns and counts as numbers, refuses one beyond 2^53, and leaves pg.types alone', async () => {
    const db = await freshDb();
    await db.exec('CREATE TABLE t (n BIGINT NOT NULL)');
    await db.run('INSERT INTO t (n) VALUES (?), (?)', [Number.MAX_SAFE_INTEGER, 1_700_000_000_000]);
    expect(await db.all('SELECT n FROM t ORDER BY n')).toEqual([{ n: 1_700_000_000_000 }, { n: Number.MAX_SAFE_INTEGER }]);
    expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: 2 });
    await db.run('INSERT INTO t (n) VALUES (9007199254740993)');
    await expect(db.all('SELECT n FROM t')).rejects.toThrow(RangeError);
    // The pool's parsers are its own: a plain pg client of the same process still gets strings.
    expect(types.getTypeParser(20, 'text')('5')).toBe('5');
    // The connection survives a refused row.
    expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: 3 });
  });

  it('round-trips Buffers through BYTEA', async () => {
    const db = await freshDb();
    await db.exec('CREATE TABLE t (k TEXT PRIMARY KEY, v BYTEA NOT NULL)');
    const bytes = Buffer.from([0, 1, 2, 0xfe, 0xff, 0x3f]);
    await db.run('INSERT INTO t (k, v) VALUES (?, ?)', ['a', bytes]);
    const row = await db.get<{ v: Buffer }>('SELECT v FROM t WHERE k = ?', ['a']);
    expect(Buffer.isBuffer(row!.v)).toBe(true);
    expect(row!.v.equals(bytes)).toBe(true);
  });

  it('reports the rows a write changed', async () => {
    const db = await freshDb();
    await db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)');
    expect(await db.run('INSERT INTO t (k) VALUES (1), (2), (3)')).toEqual({ changes: 3 });
    expect(await db.run('UPDATE t SET v = ? WHERE k > ?', ['x', 1])).toEqual({ changes: 2 });
    expect(await db.run('DELETE FROM t WHERE k = ?', [9])).toEqual({ changes: 0 });
    expect(await db.run('INSERT INTO t (k) VALUES (?) ON CONFLICT (k) DO NOTHING', [1])).toEqual({ changes: 0 });
  });

  it('keeps the connection after a statement error', async () => {
    const db = await freshDb({ poolSize: 1 });
    await db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)');
    await db.run('INSERT INTO t (k) VALUES (1)');
    await expect(db.run('INSERT INTO t (k) VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    const pid = await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await expect(db.run('INSERT INTO t (k) VALUES (1)')).rejects.toMatchObject({ code: '23505' });
    expect(await db.get('SELECT pg_backend_pid() AS pid')).toEqual(pid);
  });

  it('names itself in pg_stat_activity', async () => {
    const db = await freshDb({ applicationName: 'outpost-test-node' });
    expect(await db.get("SELECT current_setting('application_name') AS name")).toEqual({ name: 'outpost-test-node' });
  });

  it('never shows the password of a URL it refuses', () => {
    expect(() => openPostgresDatabase('mysql://u:hunter2@h/db')).toThrow('mysql://u:***@h/db');
    expect(() => openPostgresDatabase('postgres://u:hunter2@h:notaport/db')).toThrow('DATABASE_URL is not a URL: (a database URL that does not parse)');
  });
});

describe('openPostgresDatabase: transactions', () => {
  it('commits when the work resolves and returns its value', async () => {
    const db = await freshDb();
    await db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)');
    const value = await db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (k) VALUES (?)', [1]);
      await tx.run('INSERT INTO t (k) VALUES (?)', [2]);
      return (await tx.get<{ c: number }>('SELECT COUNT(*) AS c FROM t'))!.c;
    });
    expect(value).toBe(2);
    expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: 2 });
  });

  it('rolls back and rethrows when the work throws, and the connection goes back clean', async () => {
    const db = await freshDb({ poolSize: 1 });
    await db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY)');
    const failure = new Error('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k) VALUES (1)');
        throw failure;
      }),
    ).rejects.toBe(failure);
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k) VALUES (2)');
        await tx.run('INSERT INTO t (k) VALUES (2)');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.get('SELECT COUNT(*) AS c FROM t')).toEqual({ c: 0 });
    // Outside a transaction again: this statement commits by itself.
    await db.run('INSERT INTO t (k) VALUES (3)');
    expect(await db.get("SELECT current_setting('transaction_isolation') AS level")).toEqual({ level: 'read committed' });
  });

  it('does not lose an update: 50 concurrent read-modify-writes that lock their row first end at 50', async () => {
    const db = await freshDb();
    await db.exec('CREATE TABLE counters (id TEXT PRIMARY KEY, c INTEGER NOT NULL)');
    await db.run("INSERT INTO counters (id, c) VALUES ('a', 0)");
    const increment = () =>
      db.transaction(async (tx) => {
        await tx.run('UPDATE counters SET c = c WHERE id = ?', ['a']); // the lock-by-writing pattern
        const { c } = (await tx.get<{ c: number }>('SELECT c FROM counters WHERE id = ?', ['a']))!;
        await tx.run('UPDATE counters SET c = ? WHERE id = ?', [c + 1, 'a']);
      });
    await Promise.all(Array.from({ length: 50 }, increment));
    expect(await db.get("SELECT c FROM counters WHERE id = 'a'")).toEqual({ c: 50 });
  });

  it('runs transactions concurrently, each on its own connection', async () => {
    const db = await freshDb({ poolSize: 2 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const pids = await Promise.all([
      db.transaction(async (tx) => {
        await gate;
        return (await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!.pid;
      }),
      db.transaction(async (tx) => {
        const { pid } = (await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
        release();
        return pid;
      }),
    ]);
    expect(pids[0]).not.toBe(pids[1]);
  });
});

describe('openPostgresDatabase: time-outs answer storage-unavailable', () => {
  async function failure(work: Promise<unknown>): Promise<unknown> {
    return work.then(
      () => undefined,
      (err: unknown) => err,
    );
  }

  it('a row lock held longer than the lock time-out (55P03)', async () => {
    const db = await freshDb({ lockTimeoutMs: 100 });
    await db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, c INTEGER NOT NULL); INSERT INTO t VALUES ('a', 0)");
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.transaction(async (tx) => {
      await tx.run("UPDATE t SET c = c WHERE k = 'a'");
      locked();
      await gate;
    });
    await lockTaken;
    const err = await failure(db.run("UPDATE t SET c = 1 WHERE k = 'a'")).finally(release);
    await holder;
    expect(err).toMatchObject({ code: '55P03' });
    expect(isStorageUnavailable(err)).toBe(true);
  });

  it('a statement longer than the statement time-out (57014)', async () => {
    const db = await freshDb({ statementTimeoutMs: 100 });
    const err = await failure(db.get('SELECT pg_sleep(2)'));
    expect(err).toMatchObject({ code: '57014' });
    expect(isStorageUnavailable(err)).toBe(true);
  });

  it('a transaction left idle longer than its time-out is ended by the server and rolled back', async () => {
    const db = await freshDb({ idleInTransactionTimeoutMs: 100 });
    await db.exec('CREATE TABLE t (k INTEGER)');
    const err = await failure(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO t (k) VALUES (1)');
        const { pid } = (await tx.get<{ pid: number }>('SELECT pg_backend_pid() AS pid'))!;
        // Wait, on another connection, for the server to end this session.
        while ((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM pg_stat_activity WHERE pid = ?', [pid]))!.n > 0);
        await tx.run('INSERT INTO t (k) VALUES (2)');
      }),
    );
    expect(isStorageUnavailable(err)).toBe(true);
    expect(await db.all('SELECT k FROM t')).toEqual([]);
  });
});

describe('openPostgresDatabase: the server going away', () => {
  it('fails with a storage-unavailable error while the server is down, and recovers once it is back', async () => {
    const db = await freshDb({ connectTimeoutMs: 2_000 });
    await db.exec('CREATE TABLE t (k INTEGER)');
    await db.run('INSERT INTO t (k) VALUES (1)');
    const inTransaction = db.transaction(async (tx) => {
      await tx.run('INSERT INTO t (k) VALUES (2)');
      await pg.server().shutdown();
      await tx.run('INSERT INTO t (k) VALUES (3)');
    });
    const lost = await inTransaction.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isStorageUnavailable(lost)).toBe(true);

    const down = await db.get('SELECT 1 AS one').then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(isStorageUnavailable(down)).toBe(true);

    await pg.server().start();
    expect(await db.all('SELECT k FROM t ORDER BY k')).toEqual([{ k: 1 }]);
    expect(await db.transaction((tx) => tx.run('INSERT INTO t (k) VALUES (4)'))).toEqual({ changes: 1 });
  });

  it('fails with a storage-unavailable error when no connection frees up within the connect time-out', async () => {
    const db = await freshDb({ poolSize: 1, connectTimeoutMs: 200 });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const holding = db.transaction(async (tx) => {
      await tx.get('SELECT 1 AS one');
      await gate;
    });
    const waited = await db
      .get('SELECT 1 AS one')
      .then(
        () => undefined,
        (err: unknown) => err,
      )
      .finally(release);
    await holding;
    expect(isStorageUnavailable(waited)).toBe(true);
    expect(await db.get('SELECT 1 AS one')).toEqual({ one: 1 });
  });

  it('drops idle connections the server closed and opens new ones (restart)', async () => {
    const errors: Error[] = [];
    const db = await freshDb({ onIdleConnectionError: (err) => errors.push(err) });
    const before = await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await pg.server().restart();
    const after = await db.get<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(after!.pid).not.toBe(before!.pid);
    expect(errors.length).toBeGreaterThan(0);
  });

  it('closes idempotently and waits for a running transaction', async () => {
    const db = await freshDb();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = db.transaction(async (tx) => {
      await gate;
      return tx.get('SELECT 1 AS one');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const closed = Promise.all([db.close(), db.close()]);
    release();
    expect(await running).toEqual({ one: 1 });
    await closed;
    await expect(db.get('SELECT 1')).rejects.toThrow();
  });
});
