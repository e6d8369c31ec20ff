import type { DecisionRecord, DecisionRecordReason } from '../relay-protocol';
import type { SqlValue } from '../sql';
import { inTransaction, type SqlHandle } from '../control-plane';

/**
 * How long and how many decision records a tenant keeps (docs/reference/limits.md): beyond
 * either bound the oldest go. Age counts from when the control plane received a record.
 */
export const DECISION_RETENTION = Object.freeze({ maxPerTenant: 100_000, maxAgeMs: 7 * 24 * 3600 * 1000 });
export type DecisionRetention = { readonly maxPerTenant: number; readonly maxAgeMs: number };

/** Records per page of a listing: the default and the most a caller may ask for. */
export const DECISION_PAGE = Object.freeze({ default: 100, max: 500 });

/** A stored record: the edge's record with the instance that sent it, when it arrived and its id (newer is higher). */
export interface StoredDecision extends DecisionRecord {
  readonly id: number;
  readonly instance_id: string;
  readonly received_at: number;
}

/** What a listing keeps; every field is an exact match, `since` a lower bound on the record's `time`. */
export interface DecisionFilter {
  /** A directory user id or the e-mail recorded with it. */
  readonly principal?: string;
  readonly action?: string;
  /** A resource id, or `<type>:<id>` (the type may hold `::`). */
  readonly resource?: string;
  readonly decision?: 'allow' | 'deny';
  readonly instance?: string;
  readonly requestId?: string;
  /** Epoch milliseconds. */
  readonly since?: number;
}

/** A page: records older than `before` (newest first), or newer than `after` (oldest first, for following the stream). */
export interface DecisionPage {
  readonly before?: number;
  readonly after?: number;
  readonly limit: number;
}

/** Each tenant's decision records. */
export interface DecisionRepository {
  /** Stores one edge's records, in one transaction. */
  append(tenantId: string, instanceId: string, records: readonly DecisionRecord[], receivedAt: number): Promise<void>;
  list(tenantId: string, filter: DecisionFilter, page: DecisionPage): Promise<StoredDecision[]>;
  /** Deletes what is beyond the tenant's retention; answers how many went. */
  trim(tenantId: string, retention: DecisionRetention, now: number): Promise<number>;
  count(tenantId: string): Promise<number>;
}

interface Row {
  id: number;
  instance_id: string;
  received_at: number;
  at: number;
  request_id: string;
  app: string;
  principal_id: string;
  principal_email: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  decision: 'allow' | 'deny';
  reasons: string;
  policy_digest: string;
  directory_revision: number;
  latency_us: number;
}

const COLUMNS =
  'instance_id, received_at, at, request_id, app, principal_id, principal_email, action, resource_type, resource_id, decision, reasons, policy_digest, directory_revision, latency_us';

function fromRow(row: Row): StoredDecision {
  return {
    id: Number(row.id),
    instance_id: row.instance_id,
    received_at: Number(row.received_at),
    time: Number(row.at),
    request_id: row.request_id,
    app: row.app,
    principal: row.principal_email === null ? { id: row.principal_id } : { id: row.principal_id, email: row.principal_email },
    action: row.action,
    resource: { type: row.resource_type, id: row.resource_id },
    decision: row.decision,
    reasons: JSON.parse(row.reasons) as DecisionRecordReason[],
    policy_digest: row.policy_digest,
    directory_revision: Number(row.directory_revision),
    latency_us: Number(row.latency_us),
  };
}

function where(tenantId: string, filter: DecisionFilter, page: DecisionPage): { sql: string; params: SqlValue[] } {
  const clauses = ['tenant_id = ?'];
  const params: SqlValue[] = [tenantId];
  const add = (clause: string, ...values: SqlValue[]) => {
    clauses.push(clause);
    params.push(...values);
  };
  if (filter.principal !== undefined) add('(principal_id = ? OR principal_email = ?)', filter.principal, filter.principal);
  if (filter.action !== undefined) add('action = ?', filter.action);
  if (filter.resource !== undefined) {
    const split = filter.resource.lastIndexOf(':');
    // `Outpost::Todo:7` is type `Outpost::Todo`, id `7`; a bare id matches any type.
    if (split > 0 && filter.resource[split - 1] !== ':') add('(resource_id = ? OR (resource_type = ? AND resource_id = ?))', filter.resource, filter.resource.slice(0, split), filter.resource.slice(split + 1));
    else add('resource_id = ?', filter.resource);
  }
  if (filter.decision !== undefined) add('decision = ?', filter.decision);
  if (filter.instance !== undefined) add('instance_id = ?', filter.instance);
  if (filter.requestId !== undefined) add('request_id = ?', filter.requestId);
  if (filter.since !== undefined) add('at >= ?', filter.since);
  if (page.before !== undefined) add('id < ?', page.before);
  if (page.after !== undefined) add('id > ?', page.after);
  return { sql: clauses.join(' AND '), params };
}

/** Builds the decision repository over an open, migrated database. */
export function createDecisionRepository(db: SqlHandle): DecisionRepository {
  return {
    append(tenantId, instanceId, records, receivedAt) {
      if (records.length === 0) return Promise.resolve();
      const values: string[] = [];
      const params: SqlValue[] = [];
      for (const r of records) {
        values.push('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
        params.push(
          tenantId,
          instanceId,
          receivedAt,
          r.time,
          r.request_id,
          r.app,
          r.principal.id,
          r.principal.email ?? null,
          r.action,
          r.resource.type,
          r.resource.id,
          r.decision,
          JSON.stringify(r.reasons),
          r.policy_digest,
          r.directory_revision,
          Math.round(r.latency_us),
        );
      }
      return inTransaction(db, (tx) => tx.run(`INSERT INTO decisions (tenant_id, ${COLUMNS}) VALUES ${values.join(', ')}`, params)).then(() => undefined);
    },
    async list(tenantId, filter, page) {
      const { sql, params } = where(tenantId, filter, page);
      const order = page.after !== undefined ? 'ASC' : 'DESC';
      const rows = await db.all<Row>(`SELECT id, ${COLUMNS} FROM decisions WHERE ${sql} ORDER BY id ${order} LIMIT ?`, [...params, page.limit]);
      return rows.map(fromRow);
    },
    trim(tenantId, retention, now) {
      return inTransaction(db, async (tx) => {
        const old = await tx.run('DELETE FROM decisions WHERE tenant_id = ? AND received_at < ?', [tenantId, now - retention.maxAgeMs]);
        // The newest `maxPerTenant` stay: everything at or below the id just past them goes.
        const many = await tx.run(
          `DELETE FROM decisions WHERE tenant_id = ? AND id <= (
             SELECT id FROM decisions WHERE tenant_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
          [tenantId, tenantId, retention.maxPerTenant],
        );
        return old.changes + many.changes;
      });
    },
    async count(tenantId) {
      const row = await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM decisions WHERE tenant_id = ?', [tenantId]);
      return Number(row?.n ?? 0);
    },
  };
}
