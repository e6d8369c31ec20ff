import type { SqlExecutor } from '../../sql';
import { CONTROL_PLANE_MIGRATIONS } from './control-plane-schema';
import type { MigrationPlan } from './migration-plan';
import { renderMigrations } from './render-schema-steps';

/**
 * A SQLite plan over `migrations` (the real list, or a prefix of it in tests). SQLite
 * records how many have run in the file header, `PRAGMA user_version`.
 */
export function sqliteMigrationPlan(migrations: readonly string[]): MigrationPlan {
  return {
    migrations,
    async readVersion(tx: SqlExecutor) {
      const row = await tx.get<{ user_version: number }>('PRAGMA user_version');
      return row?.user_version ?? 0;
    },
    async writeVersion(tx: SqlExecutor, version: number) {
      await tx.exec(`PRAGMA user_version = ${Math.floor(version)}`);
    },
  };
}

/** The control plane's schema in SQLite's SQL, one script per version. */
export const SQLITE_MIGRATIONS: readonly string[] = renderMigrations('sqlite', CONTROL_PLANE_MIGRATIONS);

/** SQLite's plan over the whole list. */
export const SQLITE_MIGRATION_PLAN: MigrationPlan = sqliteMigrationPlan(SQLITE_MIGRATIONS);
