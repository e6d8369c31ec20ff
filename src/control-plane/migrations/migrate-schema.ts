import type { SqlDatabase, SqlEngine, SqlExecutor } from '../../sql';
import { SQLITE_MIGRATION_PLAN } from './sqlite-migrations';

/**
 * One engine's schema history: its numbered migrations (appended, never edited) and where
 * it records how many have run. Only the version record differs between engines.
 */
export interface MigrationPlan {
  readonly migrations: readonly string[];
  /** The number of migrations already applied (0 for a new database). */
  readVersion(tx: SqlExecutor): Promise<number>;
  writeVersion(tx: SqlExecutor, version: number): Promise<void>;
}

/** Each engine's plan; an engine without one cannot hold the control plane in this build. */
const PLANS: Partial<Record<SqlEngine, MigrationPlan>> = {
  sqlite: SQLITE_MIGRATION_PLAN,
};

/**
 * Brings the database up to the newest schema version inside one transaction, so two
 * processes starting together migrate once. A database migrated by a newer build is
 * refused rather than used with a schema this build does not know.
 */
export async function migrateSchema(db: SqlDatabase, plan: MigrationPlan | undefined = PLANS[db.engine]): Promise<void> {
  if (plan === undefined) throw new Error(`no control-plane migrations for the ${db.engine} engine in this build`);
  const newest = plan.migrations.length;
  await db.transaction(async (tx) => {
    const current = await plan.readVersion(tx);
    if (current > newest) {
      throw new Error(`control-plane database has schema version ${current}, newer than this build (${newest})`);
    }
    if (current === newest) return;
    for (let v = current; v < newest; v += 1) await tx.exec(plan.migrations[v]!);
    await plan.writeVersion(tx, newest);
  });
}
