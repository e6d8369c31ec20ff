import type { Database } from 'better-sqlite3';
import { applyDirectoryChange, type DirectoryChange, type DirectoryData } from '../directory';
import { checkDirectoryChange, type DirectoryChangeInput } from './check-directory-change';

/** Changes since a revision, or `resync` when the log no longer reaches back that far. */
export type ChangesSince =
  | { readonly kind: 'changes'; readonly revision: number; readonly changes: DirectoryChange[] }
  | { readonly kind: 'resync' };

/**
 * Each tenant's central directory: the current data plus a bounded change log, so edges
 * can sync incrementally and fall back to a full snapshot when they are too far behind.
 */
export interface DirectoryRepository {
  /** Sets a tenant's first directory (revision 1, empty log). */
  initialize(tenantId: string, data: Omit<DirectoryData, 'revision'>): void;
  snapshot(tenantId: string): DirectoryData | undefined;
  /** The current revision alone (no data parsed), or undefined when the tenant has no directory. */
  revision(tenantId: string): number | undefined;
  /**
   * Checks the change against the current data, applies it with the next revision and
   * appends it to the log, all in one immediate transaction, so concurrent writers (even
   * in other processes) never lose an update. Throws 400/404 HttpErrors for bad input.
   */
  change(tenantId: string, change: DirectoryChangeInput): DirectoryChange;
  changesSince(tenantId: string, since: number): ChangesSince;
}

interface DirectoryRow {
  revision: number;
  log_floor: number;
  data: string;
}

/** Builds the directory repository; `changeLogLimit` entries are kept per tenant. */
export function createDirectoryRepository(db: Database, changeLogLimit: number): DirectoryRepository {
  const insert = db.prepare('INSERT INTO directories (tenant_id, revision, log_floor, data) VALUES (?, 1, 1, ?)');
  const select = db.prepare('SELECT revision, log_floor, data FROM directories WHERE tenant_id = ?');
  const selectRevision = db.prepare('SELECT revision FROM directories WHERE tenant_id = ?').pluck();
  const update = db.prepare('UPDATE directories SET revision = ?, log_floor = ?, data = ? WHERE tenant_id = ?');
  const insertChange = db.prepare('INSERT INTO directory_changes (tenant_id, rev, change) VALUES (?, ?, ?)');
  const trim = db.prepare('DELETE FROM directory_changes WHERE tenant_id = ? AND rev <= ?');
  const selectChanges = db
    .prepare('SELECT change FROM directory_changes WHERE tenant_id = ? AND rev > ? ORDER BY rev')
    .pluck();

  const read = (tenantId: string): DirectoryData | undefined => {
    const row = select.get(tenantId) as DirectoryRow | undefined;
    return row && { ...(JSON.parse(row.data) as Omit<DirectoryData, 'revision'>), revision: row.revision };
  };

  const change = db.transaction((tenantId: string, input: DirectoryChangeInput): DirectoryChange => {
    const row = select.get(tenantId) as DirectoryRow | undefined;
    if (!row) throw new Error(`tenant ${tenantId} has no directory`);
    const current = { ...(JSON.parse(row.data) as Omit<DirectoryData, 'revision'>), revision: row.revision };
    checkDirectoryChange(current, input);
    const applied = { ...input, rev: row.revision + 1 } as DirectoryChange;
    const next = applyDirectoryChange(current, applied);
    // Entries at or below the floor are dropped; `since` below the floor then needs a full resync.
    const floor = Math.max(row.log_floor, applied.rev - changeLogLimit);
    const { revision: _revision, ...content } = next;
    update.run(applied.rev, floor, JSON.stringify(content), tenantId);
    insertChange.run(tenantId, applied.rev, JSON.stringify(applied));
    if (floor > row.log_floor) trim.run(tenantId, floor);
    return applied;
  });

  // One read transaction, so the revision and the changes come from the same moment.
  const changesSince = db.transaction((tenantId: string, since: number): ChangesSince => {
    const row = select.get(tenantId) as DirectoryRow | undefined;
    // Behind the log's floor, or ahead of the centre (a reset centre): only a snapshot helps.
    if (!row || since < row.log_floor || since > row.revision) return { kind: 'resync' };
    const changes = (selectChanges.all(tenantId, since) as string[]).map((c) => JSON.parse(c) as DirectoryChange);
    return { kind: 'changes', revision: row.revision, changes };
  });

  return {
    initialize(tenantId, data) {
      insert.run(tenantId, JSON.stringify({ roles: data.roles, users: data.users, resources: data.resources }));
    },
    snapshot: read,
    revision: (tenantId) => selectRevision.get(tenantId) as number | undefined,
    change: (tenantId, input) => change.immediate(tenantId, input),
    changesSince: (tenantId, since) => changesSince(tenantId, since),
  };
}
