export type { SqlDatabase, SqlEngine, SqlExecutor, SqlRunResult, SqlValue } from './sql-database';
export { openSqliteDatabase } from './open-sqlite-database';
export type { SqliteDatabaseOptions } from './open-sqlite-database';
export { openPostgresDatabase, DEFAULT_POOL_SIZE, CONNECT_TIMEOUT_MS, STATEMENT_TIMEOUT_MS, LOCK_TIMEOUT_MS } from './open-postgres-database';
export type { PostgresDatabaseOptions } from './open-postgres-database';
export { isStorageUnavailable, isStorageFull } from './is-storage-unavailable';
export { SqlConnectionError } from './sql-connection-error';
export { redactDatabaseUrl } from './redact-database-url';
export { storageErrorTranslator } from './storage-error-translator';
