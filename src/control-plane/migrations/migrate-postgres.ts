import type { SqlDatabase } from '../../sql';

/**
 * The advisory lock every control-plane node takes to migrate: the bytes of "outpost" as a
 * number. Nodes started together queue on it, and each finds the work done by the first.
 */
export const MIGRATION_LOCK_KEY = 0x6f7574706f7374;

/** Waits on the lock and on the migration's own statements, longer than a request may wait. */
const MIGRATION_TIMEOUT = '60s';

/**
 * Brings a PostgreSQL database up to the newest version of `migrations` and returns that
 * version. The whole run is one transaction holding a transaction-scoped advisory lock, so
 * of several nodes starting at once exactly one migrates and the rest see its result; a
 * failed migration leaves nothing behind. Each applied version is a row of `schema_version`.
 * A database newer than this build is refused: an older node must not write a schema it
 * does not know.
 */
export async function migratePostgres(db: SqlDatabase, migrations: readonly string[]): Promise<number> {
  if (db.engine !== 'postgres') throw new Error(`migratePostgres needs a PostgreSQL database, got ${db.engine}`);
  return db.transaction(async (tx) => {
    await tx.exec(`SET LOCAL lock_timeout = '${MIGRATION_TIMEOUT}'; SET LOCAL statement_timeout = '${MIGRATION_TIMEOUT}'`);
    await tx.exec(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    const row = await tx.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_version');
    const current = row?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(`control-plane database has schema version ${current}, newer than this build (${migrations.length})`);
    }
    for (let v = current; v < migrations.length; v += 1) {
      await tx.exec(migrations[v]!);
      await tx.run('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)', [v + 1, Date.now()]);
    }
    return migrations.length;
  });
}
