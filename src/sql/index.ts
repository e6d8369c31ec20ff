export type { SqlDatabase, SqlEngine, SqlExecutor, SqlRunResult, SqlValue } from './sql-database';
export { openSqliteDatabase } from './open-sqlite-database';
export type { SqliteDatabaseOptions } from './open-sqlite-database';
