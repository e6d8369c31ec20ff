import { inTransaction, type SqlHandle } from './in-transaction';
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
  initialize(tenantId: string, data: Omit<DirectoryData, 'revision'>): Promise<void>;
  snapshot(tenantId: string): Promise<DirectoryData | undefined>;
  /** The current revision alone (no data parsed), or undefined when the tenant has no directory. */
  revision(tenantId: string): Promise<number | undefined>;
  /**
   * Checks the change against the current data, applies it with the next revision and
   * appends it to the log, all in one transaction under the directory's row lock, so
   * concurrent writers (even in other processes) never lose an update. Throws 400/404
   * HttpErrors for bad input.
   */
  change(tenantId: string, change: DirectoryChangeInput): Promise<DirectoryChange>;
  changesSince(tenantId: string, since: number): Promise<ChangesSince>;
}

interface DirectoryRow {
  revision: number;
  log_floor: number;
  data: string;
}

const SELECT_DIRECTORY = 'SELECT revision, log_floor, data FROM directories WHERE tenant_id = ?';

/** Builds the directory repository; `changeLogLimit` entries are kept per tenant. */
export function createDirectoryRepository(db: SqlHandle, changeLogLimit: number): DirectoryRepository {
  const parse = (row: DirectoryRow): DirectoryData => ({ ...(JSON.parse(row.data) as Omit<DirectoryData, 'revision'>), revision: row.revision });

  return {
    async initialize(tenantId, data) {
      await db.run('INSERT INTO directories (tenant_id, revision, log_floor, data) VALUES (?, 1, 1, ?)', [
        tenantId,
        JSON.stringify({ roles: data.roles, users: data.users, resources: data.resources }),
      ]);
    },
    async snapshot(tenantId) {
      const row = await db.get<DirectoryRow>(SELECT_DIRECTORY, [tenantId]);
      return row && parse(row);
    },
    async revision(tenantId) {
      return (await db.get<{ revision: number }>('SELECT revision FROM directories WHERE tenant_id = ?', [tenantId]))?.revision;
    },
    change(tenantId, input) {
      return inTransaction(db, async (tx) => {
        // The revision is allocated inside the transaction, after the row is locked by
        // writing it: a second writer (another process, another node at READ COMMITTED)
        // waits here and then reads this change's result, so no revision is given twice.
        const locked = await tx.run('UPDATE directories SET revision = revision WHERE tenant_id = ?', [tenantId]);
        const row = locked.changes === 0 ? undefined : await tx.get<DirectoryRow>(SELECT_DIRECTORY, [tenantId]);
        if (!row) throw new Error(`tenant ${tenantId} has no directory`);
        const current = parse(row);
        checkDirectoryChange(current, input);
        const applied = { ...input, rev: row.revision + 1 } as DirectoryChange;
        const next = applyDirectoryChange(current, applied);
        // Entries at or below the floor are dropped; `since` below the floor then needs a full resync.
        const floor = Math.max(row.log_floor, applied.rev - changeLogLimit);
        const { revision: _revision, ...content } = next;
        await tx.run('UPDATE directories SET revision = ?, log_floor = ?, data = ? WHERE tenant_id = ?', [
          applied.rev,
          floor,
          JSON.stringify(content),
          tenantId,
        ]);
        await tx.run('INSERT INTO directory_changes (tenant_id, rev, change) VALUES (?, ?, ?)', [tenantId, applied.rev, JSON.stringify(applied)]);
        if (floor > row.log_floor) await tx.run('DELETE FROM directory_changes WHERE tenant_id = ? AND rev <= ?', [tenantId, floor]);
        return applied;
      });
    },
    async changesSince(tenantId, since) {
      // No transaction (a poll must not take the write lock): the revision is read first,
      // then the log up to it. Every change up to that revision was committed with it, so
      // the answer is complete unless a trim ran in between; a gap then means resync.
      const row = await db.get<{ revision: number; log_floor: number }>('SELECT revision, log_floor FROM directories WHERE tenant_id = ?', [
        tenantId,
      ]);
      // Behind the log's floor, or ahead of the centre (a reset centre): only a snapshot helps.
      if (!row || since < row.log_floor || since > row.revision) return { kind: 'resync' };
      const rows = await db.all<{ change: string }>('SELECT change FROM directory_changes WHERE tenant_id = ? AND rev > ? AND rev <= ? ORDER BY rev', [
        tenantId,
        since,
        row.revision,
      ]);
      if (rows.length !== row.revision - since) return { kind: 'resync' };
      return { kind: 'changes', revision: row.revision, changes: rows.map((c) => JSON.parse(c.change) as DirectoryChange) };
    },
  };
}
