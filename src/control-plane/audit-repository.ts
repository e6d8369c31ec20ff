import type { Database } from 'better-sqlite3';

/** Audit entries kept per tenant; the oldest are dropped beyond it (README Limits). */
export const MAX_AUDIT_ENTRIES_PER_TENANT = 10_000;
/** Entries per page of the audit list, newest first. */
export const AUDIT_PAGE_SIZE = 100;

/** What happened: who (IdP user id), what, to what, how it ended, when (ms since the epoch). */
export interface AuditEntry {
  readonly id: number;
  readonly actor: string;
  readonly action: string;
  readonly target: string | null;
  /** `ok`, or the error code the action ended with. */
  readonly outcome: string;
  readonly at: number;
}

/** A tenant's audit log: every change made through the console, appended, never edited. */
export interface AuditRepository {
  record(tenantId: string, entry: Omit<AuditEntry, 'id' | 'at'>): void;
  /** Up to {@link AUDIT_PAGE_SIZE} entries older than `before` (an entry id), newest first. */
  list(tenantId: string, before?: number): AuditEntry[];
}

/** Builds the audit repository over an open, migrated database. */
export function createAuditRepository(db: Database, now: () => number): AuditRepository {
  const insert = db.prepare('INSERT INTO audit_log (tenant_id, actor, action, target, outcome, at) VALUES (?, ?, ?, ?, ?, ?)');
  // Keeps the newest entries only: a tenant's log cannot grow the file without bound.
  const trim = db.prepare(
    `DELETE FROM audit_log WHERE tenant_id = ? AND id <= (
       SELECT id FROM audit_log WHERE tenant_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
  );
  const select = db.prepare(
    'SELECT id, actor, action, target, outcome, at FROM audit_log WHERE tenant_id = ? AND id < ? ORDER BY id DESC LIMIT ?',
  );
  const append = db.transaction((tenantId: string, entry: Omit<AuditEntry, 'id' | 'at'>) => {
    insert.run(tenantId, entry.actor, entry.action, entry.target, entry.outcome, now());
    trim.run(tenantId, tenantId, MAX_AUDIT_ENTRIES_PER_TENANT);
  });
  return {
    record: (tenantId, entry) => append.immediate(tenantId, entry),
    list: (tenantId, before = Number.MAX_SAFE_INTEGER) => select.all(tenantId, before, AUDIT_PAGE_SIZE) as AuditEntry[],
  };
}
