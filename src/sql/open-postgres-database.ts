import type { Pool, QueryResult } from 'pg';

/**
 * node-postgres, loaded when a PostgreSQL database is first opened: the components that store
 * in SQLite (every one of `npm start` by default) never load it (~30–60 ms of CPU at start each).
 */
function pg(): typeof import('pg') {
  return require('pg') as typeof import('pg');
}
import { toNumberedPlaceholders } from './numbered-placeholders';
import { giveBack, lease, queryOnLease } from './postgres-lease';
import { redactDatabaseUrl } from './redact-database-url';
import type { SqlDatabase, SqlExecutor, SqlRunResult, SqlValue } from './sql-database';

/** Connections one process keeps to PostgreSQL at most (docs/reference/limits.md). */
export const DEFAULT_POOL_SIZE = 10;
/** How long a statement waits for a connection: a new one, or a free one of a busy pool. */
export const CONNECT_TIMEOUT_MS = 2_000;
/** The longest one statement may run on the server before PostgreSQL cancels it (57014). */
export const STATEMENT_TIMEOUT_MS = 5_000;
/** The longest a statement waits for a row or table lock (55P03), like SQLite's busy time-out. */
export const LOCK_TIMEOUT_MS = 1_000;
/** A transaction left open this long without a statement is ended by the server. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 10_000;

/** How to open a pool; every field has a default fit for the control plane. */
export interface PostgresDatabaseOptions {
  /** Connections at most (default {@link DEFAULT_POOL_SIZE}). */
  readonly poolSize?: number;
  /** Shown in `pg_stat_activity`, so an operator can tell the nodes' connections apart. */
  readonly applicationName?: string;
  readonly connectTimeoutMs?: number;
  readonly statementTimeoutMs?: number;
  readonly lockTimeoutMs?: number;
  readonly idleInTransactionTimeoutMs?: number;
  /**
   * Told about an idle pooled connection that broke (the server restarted, a proxy closed
   * it). The pool has already dropped it and opens a new one when needed; this is for the log.
   */
  readonly onIdleConnectionError?: (err: Error) => void;
}

const INT8_OID = 20;

/** BIGINT as a JavaScript number; a value no number holds exactly is refused, never rounded. */
function parseSafeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} is beyond Number.MAX_SAFE_INTEGER`);
  return n;
}

/** Type parsers for this pool's connections only: the process-wide `pg.types` stay untouched. */
const POOL_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID && format !== 'binary') return parseSafeInteger;
    return pg().types.getTypeParser(oid, format);
  },
} as unknown as NonNullable<ConstructorParameters<typeof Pool>[0]>['types'];

function executor(query: (sql: string, params: readonly SqlValue[] | undefined) => Promise<QueryResult>): SqlExecutor {
  return {
    async all<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> {
      return (await query(toNumberedPlaceholders(sql), params)).rows as Row[];
    },
    async get<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row | undefined> {
      return (await query(toNumberedPlaceholders(sql), params)).rows[0] as Row | undefined;
    },
    async run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult> {
      return { changes: (await query(toNumberedPlaceholders(sql), params)).rowCount ?? 0 };
    },
    async exec(script: string): Promise<void> {
      // No parameters: the simple query protocol, which accepts several statements.
      await query(script, undefined);
    },
  };
}

/**
 * Opens a pool of connections to the PostgreSQL database at `url` behind the
 * {@link SqlDatabase} interface, so the control plane's repositories run unchanged on several
 * nodes sharing one database. Nothing connects until the first statement. Integer columns,
 * BIGINT included, come back as numbers (a value beyond 2^53 is an error, never rounded);
 * errors never carry the URL's password.
 */
export function openPostgresDatabase(url: string, options: PostgresDatabaseOptions = {}): SqlDatabase {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`DATABASE_URL is not a URL: ${redactDatabaseUrl(url)}`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new Error(`DATABASE_URL must start with postgres:// (got ${redactDatabaseUrl(url)})`);
  }
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 1) throw new Error(`pool size must be a positive integer, got ${poolSize}`);

  const pool = new (pg().Pool)({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
    lock_timeout: options.lockTimeoutMs ?? LOCK_TIMEOUT_MS,
    idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS,
    application_name: options.applicationName ?? 'outpost',
    keepAlive: true,
    types: POOL_TYPES,
  });
  const onIdleError = options.onIdleConnectionError;
  // An idle connection that breaks is dropped by the pool; without a listener it would crash us.
  pool.on('error', (err) => onIdleError?.(err));

  // Statements and transactions under way: `close` lets them finish (pg's pool would not wait
  // for one still waiting for a connection).
  const inFlight = new Set<Promise<unknown>>();
  function track<T>(work: Promise<T>): Promise<T> {
    inFlight.add(work);
    const done = () => inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  async function query(sql: string, params: readonly SqlValue[] | undefined): Promise<QueryResult> {
    // Our own lease rather than pool.query: a statement error (a constraint, say) leaves the
    // connection healthy, and pool.query would close it anyway.
    const held = await lease(pool);
    try {
      return await queryOnLease(held, sql, params);
    } finally {
      giveBack(held);
    }
  }

  let closing: Promise<void> | undefined;
  async function transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    const held = await lease(pool);
    const tx = executor((sql, params) => queryOnLease(held, sql, params));
    let result: T;
    try {
      await queryOnLease(held, 'BEGIN', undefined);
      result = await work(tx);
      await queryOnLease(held, 'COMMIT', undefined);
    } catch (err) {
      if (held.broken !== undefined) {
        giveBack(held);
        throw err;
      }
      try {
        await queryOnLease(held, 'ROLLBACK', undefined);
        giveBack(held);
      } catch (rollbackErr) {
        giveBack(held, rollbackErr as Error);
      }
      throw err;
    }
    giveBack(held);
    return result;
  }

  return {
    engine: 'postgres',
    ...executor((sql, params) => track(query(sql, params))),
    transaction: (work) => track(transaction(work)),
    close(): Promise<void> {
      closing ??= (async () => {
        while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
        await pool.end();
      })();
      return closing;
    },
  };
}
