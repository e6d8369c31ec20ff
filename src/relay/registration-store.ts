import type { Database } from 'better-sqlite3';
import type { EdgeStatus } from '../relay-protocol';

/** One edge authorizer as the relay knows it (ARCHITECTURE "Control plane and relay"). */
export interface Registration {
  readonly instanceId: string;
  readonly tenantId: string;
  readonly connectionId: string;
  readonly hostname: string;
  readonly version: string;
  readonly policyName: string;
  readonly policyDigest: string | null;
  readonly directoryRevision: number;
  readonly connected: boolean;
  /** Epoch milliseconds of the last registration. */
  readonly connectedAt: number;
  /** Epoch milliseconds of the last frame or pong. */
  readonly lastSeen: number;
}

/** What a `register` frame plus the authenticated connection contribute. */
export interface RegistrationInput {
  readonly instanceId: string;
  readonly tenantId: string;
  readonly connectionId: string;
  readonly hostname: string;
  readonly version: string;
  readonly status: EdgeStatus;
}

/** Persistence of registrations in the control plane's SQLite file (the relay's own table). */
export interface RegistrationStore {
  get(instanceId: string): Registration | undefined;
  listForTenant(tenantId: string): Registration[];
  /** Inserts or refreshes a registration and marks it connected. */
  upsertConnected(input: RegistrationInput, now: number): void;
  updateStatus(instanceId: string, status: EdgeStatus, now: number): void;
  touch(instanceId: string, now: number): void;
  markDisconnected(instanceId: string, now: number): void;
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

const SCHEMA = `
CREATE TABLE IF NOT EXISTS relay_registrations (
  instance_id        TEXT PRIMARY KEY,
  tenant_id          TEXT NOT NULL,
  connection_id      TEXT NOT NULL,
  hostname           TEXT NOT NULL,
  version            TEXT NOT NULL,
  policy_name        TEXT NOT NULL,
  policy_digest      TEXT,
  directory_revision INTEGER NOT NULL,
  connected          INTEGER NOT NULL,
  connected_at       INTEGER NOT NULL,
  last_seen          INTEGER NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS relay_registrations_tenant ON relay_registrations (tenant_id);
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
  const get = db.prepare<[string], Row>('SELECT * FROM relay_registrations WHERE instance_id = ?');
  const list = db.prepare<[string], Row>('SELECT * FROM relay_registrations WHERE tenant_id = ? ORDER BY instance_id');
  const upsert = db.prepare(`
    INSERT INTO relay_registrations (instance_id, tenant_id, connection_id, hostname, version, policy_name,
      policy_digest, directory_revision, connected, connected_at, last_seen)
    VALUES (@instanceId, @tenantId, @connectionId, @hostname, @version, @policyName,
      @policyDigest, @directoryRevision, 1, @now, @now)
    ON CONFLICT (instance_id) DO UPDATE SET connection_id = excluded.connection_id, hostname = excluded.hostname,
      version = excluded.version, policy_name = excluded.policy_name, policy_digest = excluded.policy_digest,
      directory_revision = excluded.directory_revision, connected = 1, connected_at = excluded.connected_at,
      last_seen = excluded.last_seen
    WHERE relay_registrations.tenant_id = excluded.tenant_id`);
  const prune = db.prepare(`
    DELETE FROM relay_registrations WHERE connection_id = @connectionId AND connected = 0 AND instance_id NOT IN (
      SELECT instance_id FROM relay_registrations WHERE connection_id = @connectionId AND connected = 0
      ORDER BY last_seen DESC, instance_id LIMIT @keep)`);
  const register = db.transaction((params: Record<string, unknown>) => {
    upsert.run(params);
    prune.run({ connectionId: params.connectionId, keep: MAX_DISCONNECTED_PER_CONNECTION });
  });
  const status = db.prepare(`UPDATE relay_registrations SET policy_name = ?, policy_digest = ?,
    directory_revision = ?, last_seen = ? WHERE instance_id = ?`);
  const touch = db.prepare('UPDATE relay_registrations SET last_seen = ? WHERE instance_id = ?');
  const disconnect = db.prepare('UPDATE relay_registrations SET connected = 0, last_seen = ? WHERE instance_id = ?');
  const disconnectAll = db.prepare('UPDATE relay_registrations SET connected = 0 WHERE connected = 1');

  return {
    get(instanceId) {
      const row = get.get(instanceId);
      return row ? toRegistration(row) : undefined;
    },
    listForTenant(tenantId) {
      return list.all(tenantId).map(toRegistration);
    },
    upsertConnected(input, now) {
      // The WHERE on the conflict branch keeps an instance id bound to its first tenant.
      register({
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
    updateStatus(instanceId, s, now) {
      status.run(s.policy_name, s.policy_digest, s.directory_revision, now, instanceId);
    },
    touch(instanceId, now) {
      touch.run(now, instanceId);
    },
    markDisconnected(instanceId, now) {
      disconnect.run(now, instanceId);
    },
    markAllDisconnected() {
      disconnectAll.run();
    },
  };
}
