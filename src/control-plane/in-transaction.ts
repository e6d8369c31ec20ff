import type { SqlDatabase, SqlExecutor } from '../sql';

/**
 * What a repository is built over: the database itself, or one transaction's executor when
 * the store hands repositories to a caller's transaction (`ControlPlaneStore.transaction`).
 */
export type SqlHandle = SqlDatabase | SqlExecutor;

/**
 * Runs `work` in a transaction of its own on a database, or as part of the transaction
 * already open on an executor, so one repository method serves both: alone it is atomic,
 * inside a caller's transaction it commits or rolls back with the rest.
 */
export function inTransaction<T>(sql: SqlHandle, work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
  return 'transaction' in sql ? sql.transaction(work) : work(sql);
}
