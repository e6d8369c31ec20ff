/**
 * One asynchronous interface over the two SQL engines the control plane runs on: SQLite
 * (the embedded default, one process) and PostgreSQL (`DATABASE_URL`, several nodes).
 * Repositories are written once against it, in SQL both engines accept; the migrations are
 * declared once and rendered per engine (docs/architecture.md, "Persistence").
 */

/** A bound parameter. Integers that must survive beyond 2^53 are not used anywhere. */
export type SqlValue = string | number | Buffer | null;

/** What a write statement did. */
export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  readonly changes: number;
}

/**
 * Statements with positional `?` placeholders, bound in order (the PostgreSQL engine
 * rewrites them to `$1…$n`). Column values come back as JavaScript numbers for integer
 * columns (BIGINT included), strings for text, Buffers for BLOB/BYTEA.
 */
export interface SqlExecutor {
  all<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** The first row, or undefined. */
  get<Row>(sql: string, params?: readonly SqlValue[]): Promise<Row | undefined>;
  run(sql: string, params?: readonly SqlValue[]): Promise<SqlRunResult>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
}

/** Which engine a database is; only migrations and diagnostics should need to know. */
export type SqlEngine = 'sqlite' | 'postgres';

/** An open database: statements outside a transaction autocommit one by one. */
export interface SqlDatabase extends SqlExecutor {
  readonly engine: SqlEngine;
  /**
   * Runs `work` in one transaction on one connection and commits when it resolves, rolls
   * back when it throws (the error is rethrown). SQLite runs one transaction at a time per
   * handle (`BEGIN IMMEDIATE`); PostgreSQL runs them concurrently at READ COMMITTED, so a
   * read-modify-write first locks its row by writing it — `UPDATE t SET c = c WHERE …`,
   * which both engines accept — and then can never lose an update. `work` must use `tx`,
   * never the database itself.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * SQLite only: a stamp that differs from every earlier one of this handle whenever the
   * database may have changed since — a commit by any other connection, in this process or
   * another (`PRAGMA data_version`), or a statement through this handle that could write. A
   * value read while the stamp is unchanged is still the stored one. Absent on PostgreSQL,
   * where no such signal exists without asking the server, which is what it would save.
   */
  readonly changeStamp?: () => Promise<string>;
  /** Closes the handle or pool; pending transactions finish first. Idempotent. */
  close(): Promise<void>;
}
