import type { SqlExecutor } from '../../sql';

/**
 * One engine's schema history: its numbered migrations (appended, never edited), where it
 * records how many have run, and what a migration run does first. Only these differ
 * between engines; the runner is shared.
 */
export interface MigrationPlan {
  readonly migrations: readonly string[];
  /**
   * Runs first in the migration's transaction: on PostgreSQL it takes the advisory lock that
   * serializes nodes starting together and creates the version table.
   */
  prepare?(tx: SqlExecutor): Promise<void>;
  /** The number of migrations already applied (0 for a new database). */
  readVersion(tx: SqlExecutor): Promise<number>;
  /** Records that migration `version` has run. */
  writeVersion(tx: SqlExecutor, version: number): Promise<void>;
}
