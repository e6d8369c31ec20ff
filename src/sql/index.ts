export type { SqlDatabase, SqlEngine, SqlExecutor, SqlValue } from './sql-database';
export { openSqliteDatabase } from './open-sqlite-database';
export { openPostgresDatabase } from './open-postgres-database';
export { isStorageUnavailable, isStorageFull } from './is-storage-unavailable';
export { SqlConnectionError } from './sql-connection-error';
export { redactDatabaseUrl } from './redact-database-url';
export { storageErrorTranslator } from './storage-error-translator';
