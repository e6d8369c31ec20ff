import { randomUUID } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import type { AccountKind } from './account';
import { generateSecret, hashSecret, secretMatches } from './secrets';

/** Which tenant key: the Discovery API key (relay management) or the admin key (pushes, directory writes). */
export type TenantKeyKind = 'discovery' | 'admin';

/** An authenticated edge connection: who it belongs to and which policy it serves. */
export interface EdgeConnection {
  readonly tenantId: string;
  readonly connectionId: string;
  readonly policyName: string;
}

/** A tenant as listed by the CLI (never with secrets: only their hashes are stored). */
export interface TenantSummary {
  readonly id: string;
  readonly name: string;
  readonly kind: AccountKind;
  readonly createdAt: number;
  readonly connections: readonly { readonly connectionId: string; readonly policyName: string }[];
}

/** The only moment a new tenant's keys exist in plain text: show them once, then forget them. */
export interface NewTenantKeys {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
  readonly adminApiKey: string;
}

/** A new connection's secret, likewise shown only once. */
export interface NewConnection {
  readonly connectionId: string;
  readonly connectionSecret: string;
}

/** Tenants, their keys and their edge connections. */
export interface TenantRepository {
  create(name: string): NewTenantKeys;
  exists(tenantId: string): boolean;
  /** One tenant with its connections; undefined when unknown. */
  get(tenantId: string): TenantSummary | undefined;
  list(): TenantSummary[];
  addConnection(tenantId: string, policyName: string): NewConnection;
  /** Replaces a key; the old one stops working at once. */
  rotateKey(tenantId: string, kind: TenantKeyKind): string;
  verifyKey(tenantId: string, kind: TenantKeyKind, key: string): boolean;
  verifyConnection(connectionId: string, secret: string): EdgeConnection | undefined;
  /** The policy name a connection serves, or undefined for an unknown connection. */
  connectionPolicy(connectionId: string): string | undefined;
}

interface TenantRow {
  id: string;
  name: string;
  kind: AccountKind;
  created_at: number;
}

/** Builds the tenant repository over an open, migrated database. */
export function createTenantRepository(db: Database, now: () => number): TenantRepository {
  const insertTenant = db.prepare(
    'INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const selectExists = db.prepare('SELECT 1 FROM tenants WHERE id = ?').pluck();
  const selectConnectionPolicy = db.prepare('SELECT policy_name FROM connections WHERE connection_id = ?').pluck();
  const selectTenants = db.prepare('SELECT id, name, kind, created_at FROM tenants ORDER BY created_at, id');
  const selectTenant = db.prepare('SELECT id, name, kind, created_at FROM tenants WHERE id = ?');
  const selectConnections = db.prepare(
    'SELECT connection_id, policy_name FROM connections WHERE tenant_id = ? ORDER BY created_at, connection_id',
  );
  const insertConnection = db.prepare(
    'INSERT INTO connections (connection_id, tenant_id, secret_hash, policy_name, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const keyHash = {
    discovery: db.prepare('SELECT discovery_key_hash FROM tenants WHERE id = ?').pluck(),
    admin: db.prepare('SELECT admin_key_hash FROM tenants WHERE id = ?').pluck(),
  } as const;
  const updateKey = {
    discovery: db.prepare('UPDATE tenants SET discovery_key_hash = ? WHERE id = ?'),
    admin: db.prepare('UPDATE tenants SET admin_key_hash = ? WHERE id = ?'),
  } as const;
  const selectConnection = db.prepare(
    'SELECT tenant_id, secret_hash, policy_name FROM connections WHERE connection_id = ?',
  );

  const summarize = (t: TenantRow): TenantSummary => ({
    id: t.id,
    name: t.name,
    kind: t.kind,
    createdAt: t.created_at,
    connections: (selectConnections.all(t.id) as { connection_id: string; policy_name: string }[]).map((c) => ({
      connectionId: c.connection_id,
      policyName: c.policy_name,
    })),
  });

  const requireTenant = (tenantId: string) => {
    if (!selectExists.get(tenantId)) throw new UnknownTenantError(tenantId);
  };

  return {
    create(name) {
      const keys = { tenantId: randomUUID(), discoveryApiKey: generateSecret('dk'), adminApiKey: generateSecret('ak') };
      insertTenant.run(keys.tenantId, name, hashSecret(keys.discoveryApiKey), hashSecret(keys.adminApiKey), now());
      return keys;
    },
    exists: (tenantId) => selectExists.get(tenantId) !== undefined,
    get(tenantId) {
      const row = selectTenant.get(tenantId) as TenantRow | undefined;
      return row && summarize(row);
    },
    list: () => (selectTenants.all() as TenantRow[]).map(summarize),
    addConnection(tenantId, policyName) {
      requireTenant(tenantId);
      const created = { connectionId: randomUUID(), connectionSecret: generateSecret('cs') };
      insertConnection.run(created.connectionId, tenantId, hashSecret(created.connectionSecret), policyName, now());
      return created;
    },
    rotateKey(tenantId, kind) {
      requireTenant(tenantId);
      const key = generateSecret(kind === 'discovery' ? 'dk' : 'ak');
      updateKey[kind].run(hashSecret(key), tenantId);
      return key;
    },
    verifyKey(tenantId, kind, key) {
      return secretMatches(key, keyHash[kind].get(tenantId) as Buffer | undefined);
    },
    verifyConnection(connectionId, secret) {
      const row = selectConnection.get(connectionId) as
        | { tenant_id: string; secret_hash: Buffer; policy_name: string }
        | undefined;
      if (!secretMatches(secret, row?.secret_hash)) return undefined;
      return { tenantId: row!.tenant_id, connectionId, policyName: row!.policy_name };
    },
    connectionPolicy(connectionId) {
      return selectConnectionPolicy.get(connectionId) as string | undefined;
    },
  };
}

/** The CLI named a tenant that does not exist. */
export class UnknownTenantError extends Error {
  constructor(readonly tenantId: string) {
    super(`unknown tenant ${tenantId}`);
    this.name = 'UnknownTenantError';
  }
}
