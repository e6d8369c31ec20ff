import type { Database } from 'better-sqlite3';
import type { EdgeStatus } from '../relay-protocol';
import type { InstanceKey, RegisterOutcome, Registration, RegistrationInput } from './registration';

/** Persistence of registrations in the control plane's SQLite file (the relay's own table). */
export interface RegistrationStore {
  get(key: InstanceKey): Registration | undefined;
  /** A tenant's registrations ordered by instance id, at most `limit`, after `after` when given. */
  listForTenant(tenantId: string, page?: { readonly after?: string; readonly limit?: number }): Registration[];
  /**
   * Inserts or refreshes a registration and marks it connected, unless the instance id is
   * bound to another connection of the tenant (the first to register it keeps it).
   */
  register(input: RegistrationInput, now: number): RegisterOutcome;
  updateStatus(key: InstanceKey, status: EdgeStatus, now: number): void;
  touch(key: InstanceKey, now: number): void;
  markDisconnected(key: InstanceKey, now: number): void;
  /** Forgets a registration so another connection may take its id; false when there was none. */
  release(key: InstanceKey): boolean;
  /** After a restart no socket survives, so every row starts disconnected. */
  markAllDisconnected(): void;
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

// Keyed by (tenant, instance): instance ids are a tenant's own namespace. The table of the
// first release (keyed by instance id alone) is dropped: registrations are soft state that
// every edge re-creates when it reconnects.
const SCHEMA = `
DROP TABLE IF EXISTS relay_registrations;
CREATE TABLE IF NOT EXISTS relay_instances (
  tenant_id          TEXT NOT NULL,
  instance_id        TEXT NOT NULL,
  connection_id      TEXT NOT NULL,
  hostname           TEXT NOT NULL,
  version            TEXT NOT NULL,
  policy_name        TEXT NOT NULL,
  policy_digest      TEXT,
  directory_revision INTEGER NOT NULL,
  connected          INTEGER NOT NULL,
  connected_at       INTEGER NOT NULL,
  last_seen          INTEGER NOT NULL,
  PRIMARY KEY (tenant_id, instance_id)
) STRICT;
CREATE INDEX IF NOT EXISTS relay_instances_connection ON relay_instances (connection_id, connected);
`;

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

/** Creates the relay's table in the shared database (idempotent) and prepares its statements once. */
export function openRegistrationStore(db: Database): RegistrationStore {
  db.exec(SCHEMA);
  const get = db.prepare<[string, string], Row>('SELECT * FROM relay_instances WHERE tenant_id = ? AND instance_id = ?');
  const list = db.prepare<[string, string, number], Row>(
    'SELECT * FROM relay_instances WHERE tenant_id = ? AND instance_id > ? ORDER BY instance_id LIMIT ?',
  );
  // The conflict branch only updates a row of the same connection: an id stays bound to
  // the connection that registered it first, until an operator releases it.
  const upsert = db.prepare(`
    INSERT INTO relay_instances (tenant_id, instance_id, connection_id, hostname, version, policy_name,
      policy_digest, directory_revision, connected, connected_at, last_seen)
    VALUES (@tenantId, @instanceId, @connectionId, @hostname, @version, @policyName,
      @policyDigest, @directoryRevision, 1, @now, @now)
    ON CONFLICT (tenant_id, instance_id) DO UPDATE SET hostname = excluded.hostname,
      version = excluded.version, policy_name = excluded.policy_name, policy_digest = excluded.policy_digest,
      directory_revision = excluded.directory_revision, connected = 1, connected_at = excluded.connected_at,
      last_seen = excluded.last_seen
    WHERE relay_instances.connection_id = excluded.connection_id`);
  const prune = db.prepare(`
    DELETE FROM relay_instances WHERE connection_id = @connectionId AND connected = 0 AND instance_id NOT IN (
      SELECT instance_id FROM relay_instances WHERE connection_id = @connectionId AND connected = 0
      ORDER BY last_seen DESC, instance_id LIMIT @keep)`);
  const register = db.transaction((params: Record<string, unknown>): RegisterOutcome => {
    if (upsert.run(params).changes === 0) return 'bound_to_other_connection';
    prune.run({ connectionId: params.connectionId, keep: MAX_DISCONNECTED_PER_CONNECTION });
    return 'registered';
  });
  const status = db.prepare(`UPDATE relay_instances SET policy_name = ?, policy_digest = ?,
    directory_revision = ?, last_seen = ? WHERE tenant_id = ? AND instance_id = ?`);
  const touch = db.prepare('UPDATE relay_instances SET last_seen = ? WHERE tenant_id = ? AND instance_id = ?');
  const disconnect = db.prepare('UPDATE relay_instances SET connected = 0, last_seen = ? WHERE tenant_id = ? AND instance_id = ?');
  const remove = db.prepare('DELETE FROM relay_instances WHERE tenant_id = ? AND instance_id = ?');
  const disconnectAll = db.prepare('UPDATE relay_instances SET connected = 0 WHERE connected = 1');

  return {
    get({ tenantId, instanceId }) {
      const row = get.get(tenantId, instanceId);
      return row ? toRegistration(row) : undefined;
    },
    listForTenant(tenantId, page = {}) {
      return list.all(tenantId, page.after ?? '', page.limit ?? -1).map(toRegistration);
    },
    register(input, now) {
      return register({
        instanceId: input.instanceId,
        tenantId: input.tenantId,
        connectionId: input.connectionId,
        hostname: input.hostname,
        version: input.version,
        policyName: input.status.policy_name,
        policyDigest: input.status.policy_digest,
        directoryRevision: input.status.directory_revision,
        now,
      });
    },
    updateStatus({ tenantId, instanceId }, s, now) {
      status.run(s.policy_name, s.policy_digest, s.directory_revision, now, tenantId, instanceId);
    },
    touch({ tenantId, instanceId }, now) {
      touch.run(now, tenantId, instanceId);
    },
    markDisconnected({ tenantId, instanceId }, now) {
      disconnect.run(now, tenantId, instanceId);
    },
    release({ tenantId, instanceId }) {
      return remove.run(tenantId, instanceId).changes > 0;
    },
    markAllDisconnected() {
      disconnectAll.run();
    },
  };
}
