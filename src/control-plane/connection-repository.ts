import { randomUUID } from 'node:crypto';
import type { SqlHandle } from './in-transaction';
import { generateSecret, hashSecret, secretMatches } from './secrets';

/** An authenticated edge connection: who it belongs to and which policy it serves. */
export interface EdgeConnection {
  readonly tenantId: string;
  readonly connectionId: string;
  readonly policyName: string;
}

/** One edge connection as listed: its id, the policy it serves, and what it is called. */
export interface ConnectionSummary {
  readonly connectionId: string;
  readonly policyName: string;
  /** What the connection serves, in words ("sidecar"), or null when it was given none. */
  readonly label: string | null;
}

/** A new connection's secret, likewise shown only once. */
export interface NewConnection {
  readonly connectionId: string;
  readonly connectionSecret: string;
}

/** A tenant's edge connections: each a secret (kept as a hash) and the policy it serves. */
export interface ConnectionRepository {
  /** Adds an edge connection serving `policyName`, with an optional {@link ConnectionSummary.label}. */
  addConnection(tenantId: string, policyName: string, label?: string): Promise<NewConnection>;
  /**
   * Labels one of the tenant's connections that has no label yet (a connection made before
   * labels existed); false when it has one already, or is not the tenant's.
   */
  labelConnection(tenantId: string, connectionId: string, label: string): Promise<boolean>;
  verifyConnection(connectionId: string, secret: string): Promise<EdgeConnection | undefined>;
  /** The policy name a connection serves, or undefined for an unknown connection. */
  connectionPolicy(connectionId: string): Promise<string | undefined>;
}

/** A row of `connections` as the tenant lists read it. */
export interface ConnectionRow {
  tenant_id: string;
  connection_id: string;
  policy_name: string;
  label: string | null;
}

/** The columns of a {@link ConnectionRow}, in the order lists show them. */
export const SELECT_CONNECTIONS = 'SELECT tenant_id, connection_id, policy_name, label FROM connections';

export const connectionSummary = (c: ConnectionRow): ConnectionSummary => ({ connectionId: c.connection_id, policyName: c.policy_name, label: c.label });

/**
 * Builds the connection repository over an open, migrated database; `requireTenant` throws
 * for an unknown tenant before a connection is added to it.
 */
export function createConnectionRepository(db: SqlHandle, now: () => number, requireTenant: (tenantId: string) => Promise<void>): ConnectionRepository {
  return {
    async addConnection(tenantId, policyName, label) {
      await requireTenant(tenantId);
      const created = { connectionId: randomUUID(), connectionSecret: generateSecret('cs') };
      await db.run('INSERT INTO connections (connection_id, tenant_id, secret_hash, policy_name, label, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        created.connectionId,
        tenantId,
        hashSecret(created.connectionSecret),
        policyName,
        label ?? null,
        now(),
      ]);
      return created;
    },
    async labelConnection(tenantId, connectionId, label) {
      const { changes } = await db.run('UPDATE connections SET label = ? WHERE connection_id = ? AND tenant_id = ? AND label IS NULL', [
        label,
        connectionId,
        tenantId,
      ]);
      return changes === 1;
    },
    async verifyConnection(connectionId, secret) {
      const row = await db.get<{ tenant_id: string; secret_hash: Buffer; policy_name: string }>(
        'SELECT tenant_id, secret_hash, policy_name FROM connections WHERE connection_id = ?',
        [connectionId],
      );
      if (!secretMatches(secret, row?.secret_hash)) return undefined;
      return { tenantId: row!.tenant_id, connectionId, policyName: row!.policy_name };
    },
    async connectionPolicy(connectionId) {
      const row = await db.get<{ policy_name: string }>('SELECT policy_name FROM connections WHERE connection_id = ?', [connectionId]);
      return row?.policy_name;
    },
  };
}
