import type { SqlDatabase } from '../sql';
import type { EdgeStatus } from '../relay-protocol';
import type { InstanceKey, RegisterOutcome, Registration, RegistrationInput } from './registration';

/**
 * Persistence of registrations in the control plane's database (the relay's own table,
 * created by the store's migrations). Every method is one statement or one transaction.
 */
export interface RegistrationStore {
  get(key: InstanceKey): Promise<Registration | undefined>;
  /** A tenant's registrations ordered by instance id, at most `limit`, after `after` when given. */
  listForTenant(tenantId: string, page?: { readonly after?: string; readonly limit?: number }): Promise<Registration[]>;
  /**
   * Inserts or refreshes a registration and marks it connected, unless the instance id is
   * bound to another connection of the tenant (the first to register it keeps it).
   */
  register(input: RegistrationInput, now: number): Promise<RegisterOutcome>;
  updateStatus(key: InstanceKey, status: EdgeStatus, now: number): Promise<void>;
  /** Moves `last_seen` of several of one tenant's instances in one statement (heartbeat batches). */
  touchMany(tenantId: string, instanceIds: readonly string[], now: number): Promise<void>;
  markDisconnected(key: InstanceKey, now: number): Promise<void>;
  /** Forgets a registration so another connection may take its id; false when there was none. */
  release(key: InstanceKey): Promise<boolean>;
  /** After a restart no socket survives, so every row starts disconnected. */
  markAllDisconnected(): Promise<void>;
}

interface Row {
  instance_id: string;
  tenant_id: string;
  connection_id: string;
  hostname: string;
  version: string;
  policy_name: string;
  policy_digest: string | null;
  directory_revision: number;
  connected: number;
  connected_at: number;
  last_seen: number;
}

function toRegistration(row: Row): Registration {
  return {
    instanceId: row.instance_id,
    tenantId: row.tenant_id,
    connectionId: row.connection_id,
    hostname: row.hostname,
    version: row.version,
    policyName: row.policy_name,
    policyDigest: row.policy_digest,
    directoryRevision: row.directory_revision,
    connected: row.connected === 1,
    connectedAt: row.connected_at,
    lastSeen: row.last_seen,
  };
}

/**
 * Disconnected registrations kept per edge connection. Every restart of an edge with a new
 * data directory registers a new instance id; without a bound, one connection credential
 * could grow the table (and the list endpoint) without end. The oldest go first.
 */
export const MAX_DISCONNECTED_PER_CONNECTION = 20;

// The conflict branch only updates a row of the same connection: an id stays bound to
// the connection that registered it first, until an operator releases it.
const UPSERT = `
  INSERT INTO relay_instances (tenant_id, instance_id, connection_id, hostname, version, policy_name,
    policy_digest, directory_revision, connected, connected_at, last_seen)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)
  ON CONFLICT (tenant_id, instance_id) DO UPDATE SET hostname = excluded.hostname,
    version = excluded.version, policy_name = excluded.policy_name, policy_digest = excluded.policy_digest,
    directory_revision = excluded.directory_revision, connected = 1, connected_at = excluded.connected_at,
    last_seen = excluded.last_seen
  WHERE relay_instances.connection_id = excluded.connection_id`;
const PRUNE = `
  DELETE FROM relay_instances WHERE connection_id = ? AND connected = 0 AND instance_id NOT IN (
    SELECT instance_id FROM relay_instances WHERE connection_id = ? AND connected = 0
    ORDER BY last_seen DESC, instance_id LIMIT ?)`;

/** The registration store over the control plane's database (its table already migrated). */
export function openRegistrationStore(db: SqlDatabase): RegistrationStore {
  return {
    async get({ tenantId, instanceId }) {
      const row = await db.get<Row>('SELECT * FROM relay_instances WHERE tenant_id = ? AND instance_id = ?', [tenantId, instanceId]);
      return row ? toRegistration(row) : undefined;
    },
    async listForTenant(tenantId, page = {}) {
      // Unbounded means no LIMIT clause at all (no engine-specific "no limit" value).
      const sql = 'SELECT * FROM relay_instances WHERE tenant_id = ? AND instance_id > ? ORDER BY instance_id';
      const rows =
        page.limit === undefined
          ? await db.all<Row>(sql, [tenantId, page.after ?? ''])
          : await db.all<Row>(`${sql} LIMIT ?`, [tenantId, page.after ?? '', page.limit]);
      return rows.map(toRegistration);
    },
    register(input, now) {
      return db.transaction(async (tx): Promise<RegisterOutcome> => {
        // The upsert writes (so locks) the instance's row before the prune reads the
        // connection's other rows; concurrent prunes of one connection each keep the newest
        // MAX_DISCONNECTED_PER_CONNECTION, so running them one after the other changes nothing.
        const upserted = await tx.run(UPSERT, [
          input.tenantId,
          input.instanceId,
          input.connectionId,
          input.hostname,
          input.version,
          input.status.policy_name,
          input.status.policy_digest,
          input.status.directory_revision,
          now,
          now,
        ]);
        if (upserted.changes === 0) return 'bound_to_other_connection';
        await tx.run(PRUNE, [input.connectionId, input.connectionId, MAX_DISCONNECTED_PER_CONNECTION]);
        return 'registered';
      });
    },
    async updateStatus({ tenantId, instanceId }, s, now) {
      await db.run(
        `UPDATE relay_instances SET policy_name = ?, policy_digest = ?, directory_revision = ?, last_seen = ?
         WHERE tenant_id = ? AND instance_id = ?`,
        [s.policy_name, s.policy_digest, s.directory_revision, now, tenantId, instanceId],
      );
    },
    async touchMany(tenantId, instanceIds, now) {
      if (instanceIds.length === 0) return;
      const marks = instanceIds.map(() => '?').join(', ');
      await db.run(`UPDATE relay_instances SET last_seen = ? WHERE tenant_id = ? AND instance_id IN (${marks})`, [now, tenantId, ...instanceIds]);
    },
    async markDisconnected({ tenantId, instanceId }, now) {
      await db.run('UPDATE relay_instances SET connected = 0, last_seen = ? WHERE tenant_id = ? AND instance_id = ?', [now, tenantId, instanceId]);
    },
    async release({ tenantId, instanceId }) {
      return (await db.run('DELETE FROM relay_instances WHERE tenant_id = ? AND instance_id = ?', [tenantId, instanceId])).changes > 0;
    },
    async markAllDisconnected() {
      await db.run('UPDATE relay_instances SET connected = 0 WHERE connected = 1');
    },
  };
}
