import { inTransaction, type SqlHandle } from './in-transaction';

/** Audit entries kept per tenant; the oldest are dropped beyond it (docs/reference/limits.md). */
export const MAX_AUDIT_ENTRIES_PER_TENANT = 10_000;
/** Entries per page of the audit list, newest first. */
export const AUDIT_PAGE_SIZE = 100;

/**
 * Who made a change: a console user (`actor` is their IdP user id), the tenant's admin key
 * (the admin API, and so the CLIs that call it; `actor` is {@link ADMIN_KEY_ACTOR}), or the
 * tenants CLI on the control-plane host, which writes the database itself (`actor` is
 * {@link CLI_ACTOR}).
 */
export type AuditActorKind = 'user' | 'admin_key' | 'cli';

/** The `actor` of an admin-key entry: the key has no user behind it. */
export const ADMIN_KEY_ACTOR = 'admin_key';
/** The `actor` of an entry the tenants CLI wrote (`npm run tenants`): whoever runs it on the host. */
export const CLI_ACTOR = 'tenants_cli';

/** What happened: who, what, to what, how it ended, when (ms since the epoch). */
export interface AuditEntry {
  readonly id: number;
  readonly actor: string;
  readonly actorKind: AuditActorKind;
  readonly action: string;
  readonly target: string | null;
  /** `ok`, or the error code the action ended with. */
  readonly outcome: string;
  readonly at: number;
}

/** A tenant's audit log: every change made through the console or the admin API, appended, never edited. */
export interface AuditRepository {
  record(tenantId: string, entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void>;
  /** Up to {@link AUDIT_PAGE_SIZE} entries older than `before` (an entry id), newest first. */
  list(tenantId: string, before?: number): Promise<AuditEntry[]>;
}

/** Builds the audit repository over an open, migrated database. */
export function createAuditRepository(db: SqlHandle, now: () => number): AuditRepository {
  return {
    record(tenantId, entry) {
      return inTransaction(db, async (tx) => {
        await tx.run('INSERT INTO audit_log (tenant_id, actor, actor_kind, action, target, outcome, at) VALUES (?, ?, ?, ?, ?, ?, ?)', [
          tenantId,
          entry.actor,
          entry.actorKind,
          entry.action,
          entry.target,
          entry.outcome,
          now(),
        ]);
        // Keeps the newest entries only: a tenant's log cannot grow the database without bound.
        // Concurrent appends need no lock: each trim only drops what is beyond the bound anyway.
        await tx.run(
          `DELETE FROM audit_log WHERE tenant_id = ? AND id <= (
             SELECT id FROM audit_log WHERE tenant_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
          [tenantId, tenantId, MAX_AUDIT_ENTRIES_PER_TENANT],
        );
      });
    },
    list: (tenantId, before = Number.MAX_SAFE_INTEGER) =>
      db.all<AuditEntry>(
        `SELECT id, actor, actor_kind AS "actorKind", action, target, outcome, at FROM audit_log
         WHERE tenant_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
        [tenantId, before, AUDIT_PAGE_SIZE],
      ),
  };
}

/**
 * Writes one console user's audit entry: tenant, actor (user id), action, target, outcome
 * (`ok` or an error code). Given a transaction's repository, the entry commits or rolls back
 * with the change.
 */
export function recordAudit(
  audit: AuditRepository,
  tenantId: string,
  actor: string,
  action: string,
  target: string | null,
  outcome = 'ok',
): Promise<void> {
  return audit.record(tenantId, { actor, actorKind: 'user', action, target, outcome });
}

/** Writes the audit entry of a change made with the tenant's admin key, like {@link recordAudit}. */
export function recordAdminKeyAudit(audit: AuditRepository, tenantId: string, action: string, target: string | null): Promise<void> {
  return audit.record(tenantId, { actor: ADMIN_KEY_ACTOR, actorKind: 'admin_key', action, target, outcome: 'ok' });
}

/** Writes the audit entry of a change the tenants CLI made, like {@link recordAudit}. */
export function recordCliAudit(audit: AuditRepository, tenantId: string, action: string, target: string | null): Promise<void> {
  return audit.record(tenantId, { actor: CLI_ACTOR, actorKind: 'cli', action, target, outcome: 'ok' });
}
