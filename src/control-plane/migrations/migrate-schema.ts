import type { SqlDatabase, SqlEngine } from '../../sql';
import type { MigrationPlan } from './migration-plan';
import { POSTGRES_MIGRATION_PLAN } from './postgres-migrations';
import { SQLITE_MIGRATION_PLAN } from './sqlite-migrations';

/** Each engine's plan: one runner entry point for both. */
const PLANS: Record<SqlEngine, MigrationPlan> = {
  sqlite: SQLITE_MIGRATION_PLAN,
  postgres: POSTGRES_MIGRATION_PLAN,
};

/**
 * Brings the database up to the newest schema version inside one transaction, so of two
 * processes (or nodes) starting together one migrates and the other finds the work done;
 * a failed migration leaves nothing behind. Returns the version the database is at. A
 * database migrated by a newer build is refused rather than used with a schema this build
 * does not know.
 */
export async function migrateSchema(db: SqlDatabase, plan: MigrationPlan = PLANS[db.engine]): Promise<number> {
  const newest = plan.migrations.length;
  return db.transaction(async (tx) => {
    await plan.prepare?.(tx);
    const current = await plan.readVersion(tx);
    if (current > newest) {
      throw new Error(`control-plane database has schema version ${current}, newer than this build (${newest})`);
    }
    for (let v = current; v < newest; v += 1) {
      await tx.exec(plan.migrations[v]!);
      await plan.writeVersion(tx, v + 1);
    }
    return newest;
  });
}
