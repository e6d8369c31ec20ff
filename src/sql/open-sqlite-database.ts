import { resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { SqlDatabase, SqlExecutor, SqlRunResult, SqlValue } from './sql-database';

/** Options of {@link openSqliteDatabase}. */
export interface SqliteDatabaseOptions {
  /**
   * How long a statement waits for another process's lock before failing with
   * `SQLITE_BUSY` (default 5000 ms). better-sqlite3 waits synchronously, on the event loop.
   */
  readonly busyTimeoutMs?: number;
  /** Refuse to create the file (a second handle on a database someone else opened). */
  readonly fileMustExist?: boolean;
}

/** Prepared statements kept per handle; the repositories use a few dozen distinct texts. */
const STATEMENT_CACHE_SIZE = 256;

/**
 * Opens a SQLite file (or `':memory:'`) behind {@link SqlDatabase}: WAL journal so readers
 * never block the writer, foreign keys on, `synchronous = NORMAL` (durable at checkpoints,
 * never corrupt), the busy timeout from `options`. Statements are prepared once per SQL text.
 *
 * better-sqlite3 is one connection, so a statement issued while a transaction is open would
 * run inside it. Transactions therefore queue, one at a time, and a call made on the
 * database while one is queued or running waits its turn (first come, first served); with
 * nothing queued a call runs at once. Handles on the same file in one process share that
 * queue (see {@link FileQueue}).
 */
export function openSqliteDatabase(file: string, options: SqliteDatabaseOptions = {}): Promise<SqlDatabase> {
  const db = new Database(file, { fileMustExist: options.fileMustExist ?? false });
  try {
    if (file !== ':memory:') db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
  } catch (err) {
    db.close();
    return Promise.reject(err);
  }
  return Promise.resolve(wrap(db, file));
}

/** A synchronous statement's outcome as a promise: its value, or its throw as a rejection. */
function settle<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * The order of work on one database file within this process. A transaction stays open across
 * its awaits, and a statement on a second handle that ran meanwhile would find the file locked
 * by the first: better-sqlite3 waits for the lock synchronously, on the event loop the
 * transaction needs to finish, so it could only time out (SQLITE_BUSY) after stalling the
 * process (the relay's registration writes beside a stored batch of decisions did, in
 * test/sql/sqlite-file-queue.test.ts). Sharing one queue per file, such a statement waits its
 * turn instead; the busy timeout is left to other processes' locks.
 */
interface FileQueue {
  tail: Promise<unknown>;
  /** Entries queued and not yet finished, over every handle on the file. */
  queued: number;
  /** Open handles on the file; the queue is forgotten with the last. */
  handles: number;
}

const fileQueues = new Map<string, FileQueue>();

/** The queue of `file` (`':memory:'` is a database of its own on every open). */
function queueOf(file: string): { queue: FileQueue; release(): void } {
  if (file === ':memory:') return { queue: { tail: Promise.resolve(), queued: 0, handles: 1 }, release: () => undefined };
  const key = resolve(file);
  let queue = fileQueues.get(key);
  if (queue === undefined) {
    queue = { tail: Promise.resolve(), queued: 0, handles: 0 };
    fileQueues.set(key, queue);
  }
  queue.handles += 1;
  const shared = queue;
  return {
    queue: shared,
    release() {
      shared.handles -= 1;
      if (shared.handles === 0) fileQueues.delete(key);
    },
  };
}

function wrap(db: Database.Database, file: string): SqlDatabase {
  const statements = new Map<string, Database.Statement>();
  // Statements through this handle that could have written: `data_version` moves only with
  // other connections' commits, so changeStamp counts this handle's own writes here.
  let writes = 0;
  /** The prepared statement for `sql`, about to run: counted in `writes` when it can write. */
  const toRun = (sql: string): Database.Statement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
      statements.set(sql, statement);
    }
    if (!statement.readonly) writes += 1;
    return statement;
  };

  // The statements themselves, synchronous; both the database and a transaction's `tx` use them.
  const direct = {
    all<Row>(sql: string, params: readonly SqlValue[] = []): Row[] {
      const statement = toRun(sql);
      if (statement.reader) return statement.all(...params) as Row[];
      statement.run(...params);
      return [];
    },
    get<Row>(sql: string, params: readonly SqlValue[] = []): Row | undefined {
      const statement = toRun(sql);
      if (statement.reader) return statement.get(...params) as Row | undefined;
      statement.run(...params);
      return undefined;
    },
    run(sql: string, params: readonly SqlValue[] = []): SqlRunResult {
      return { changes: toRun(sql).run(...params).changes };
    },
    exec(script: string): void {
      writes += 1;
      db.exec(script);
    },
  };

  // Work queued behind a transaction, on this handle or another on the same file.
  const { queue, release } = queueOf(file);
  let closed = false;
  const enqueue = <T>(work: () => T | Promise<T>): Promise<T> => {
    queue.queued += 1;
    const result = queue.tail.then(work);
    const done = () => {
      queue.queued -= 1;
    };
    queue.tail = result.then(done, done);
    return result;
  };
  /** Runs at once when nothing is queued, else after everything queued before it. */
  const call = <T>(work: () => T): Promise<T> => (queue.queued > 0 ? enqueue(work) : settle(work));

  let txOpen = false;
  const tx: SqlExecutor = {
    all: <Row>(sql: string, params?: readonly SqlValue[]) => inTx(() => direct.all<Row>(sql, params)),
    get: <Row>(sql: string, params?: readonly SqlValue[]) => inTx(() => direct.get<Row>(sql, params)),
    run: (sql, params) => inTx(() => direct.run(sql, params)),
    exec: (script) => inTx(() => direct.exec(script)),
  };
  // A `tx` kept past its transaction would otherwise write outside any transaction.
  function inTx<T>(work: () => T): Promise<T> {
    if (!txOpen) return Promise.reject(new Error('the transaction has already ended'));
    return settle(work);
  }

  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  return {
    engine: 'sqlite',
    changeStamp: () => call(() => `${dataVersion.get() as number}:${writes}`),
    all: (sql, params) => call(() => direct.all(sql, params)),
    get: (sql, params) => call(() => direct.get(sql, params)),
    run: (sql, params) => call(() => direct.run(sql, params)),
    exec: (script) => call(() => direct.exec(script)),
    transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      return enqueue(async () => {
        // IMMEDIATE takes the write lock up front: a read-then-write cannot deadlock on upgrade.
        db.exec('BEGIN IMMEDIATE');
        txOpen = true;
        try {
          const result = await work(tx);
          txOpen = false;
          db.exec('COMMIT');
          return result;
        } catch (err) {
          txOpen = false;
          if (db.inTransaction) db.exec('ROLLBACK');
          throw err;
        }
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      await enqueue(() => undefined);
      release();
      if (db.open) db.close();
    },
  };
}
