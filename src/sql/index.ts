export type { SqlDatabase, SqlEngine, SqlExecutor, SqlRunResult, SqlValue } from './sql-database';
