import type { SqlExecutor } from '../../sql';
import { CONTROL_PLANE_MIGRATIONS } from './control-plane-schema';
import type { MigrationPlan } from './migration-plan';
import { renderMigrations } from './render-schema-steps';

/** The control plane's schema in PostgreSQL's SQL, one script per version. */
export const POSTGRES_MIGRATIONS: readonly string[] = renderMigrations('postgres', CONTROL_PLANE_MIGRATIONS);

/**
 * The advisory lock every control-plane node takes to migrate: the bytes of "outpost" as a
 * number. Nodes started together queue on it, and each finds the work done by the first.
 */
export const MIGRATION_LOCK_KEY = 0x6f7574706f7374;

/** Waits on the lock and on the migration's own statements, longer than a request may wait. */
const MIGRATION_TIMEOUT = '60s';

/**
 * Takes the transaction-scoped advisory lock `key`, which every node's transactions share,
 * waiting at most `timeout` (a PostgreSQL interval) for another node to release it.
 */
export async function takeNodeLock(tx: SqlExecutor, key: number, timeout: string): Promise<void> {
  await tx.exec(`SET LOCAL lock_timeout = '${timeout}'`);
  await tx.exec(`SELECT pg_advisory_xact_lock(${key})`);
}

/**
 * A PostgreSQL plan over `migrations` (the real list, or a prefix of it in tests). The run
 * holds a transaction-scoped advisory lock, so of several nodes starting at once exactly one
 * migrates; each applied version is a row of `schema_version`.
 */
export function postgresMigrationPlan(migrations: readonly string[]): MigrationPlan {
  return {
    migrations,
    async prepare(tx: SqlExecutor) {
      await tx.exec(`SET LOCAL statement_timeout = '${MIGRATION_TIMEOUT}'`);
      await takeNodeLock(tx, MIGRATION_LOCK_KEY, MIGRATION_TIMEOUT);
      await tx.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
    },
    async readVersion(tx: SqlExecutor) {
      const row = await tx.get<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_version');
      return row?.version ?? 0;
    },
    async writeVersion(tx: SqlExecutor, version: number) {
      await tx.run('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)', [version, Date.now()]);
    },
  };
}

/** PostgreSQL's plan over the whole list. */
export const POSTGRES_MIGRATION_PLAN: MigrationPlan = postgresMigrationPlan(POSTGRES_MIGRATIONS);
