import { randomUUID } from 'node:crypto';
import type { SqlHandle } from './in-transaction';
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
  readonly connections: readonly ConnectionSummary[];
}

/** One edge connection as listed: its id, the policy it serves, and what it is called. */
export interface ConnectionSummary {
  readonly connectionId: string;
  readonly policyName: string;
  /** What the connection serves, in words ("sidecar"), or null when it was given none. */
  readonly label: string | null;
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
  create(name: string): Promise<NewTenantKeys>;
  exists(tenantId: string): Promise<boolean>;
  /** One tenant with its connections; undefined when unknown. */
  get(tenantId: string): Promise<TenantSummary | undefined>;
  list(): Promise<TenantSummary[]>;
  /** Adds an edge connection serving `policyName`, with an optional {@link ConnectionSummary.label}. */
  addConnection(tenantId: string, policyName: string, label?: string): Promise<NewConnection>;
  /**
   * Labels one of the tenant's connections that has no label yet (a connection made before
   * labels existed); false when it has one already, or is not the tenant's.
   */
  labelConnection(tenantId: string, connectionId: string, label: string): Promise<boolean>;
  /**
   * Whether a directory change or a policy push is broadcast to the tenant's edges by itself
   * (docs/reference/api.md, "Push on change"); false for an unknown tenant.
   */
  pushOnChange(tenantId: string): Promise<boolean>;
  /** Turns push on change on or off; false for an unknown tenant. */
  setPushOnChange(tenantId: string, on: boolean): Promise<boolean>;
  /** Replaces a key; the old one stops working at once. */
  rotateKey(tenantId: string, kind: TenantKeyKind): Promise<string>;
  /**
   * Whether `key`, or any of several candidate readings of one credential, is the tenant's
   * key of that kind: one read of the stored hash, every candidate compared in constant time.
   */
  verifyKey(tenantId: string, kind: TenantKeyKind, key: string | readonly string[]): Promise<boolean>;
  /** The stored hash of the tenant's key of that kind; undefined for an unknown tenant. */
  keyHash(tenantId: string, kind: TenantKeyKind): Promise<Buffer | undefined>;
  verifyConnection(connectionId: string, secret: string): Promise<EdgeConnection | undefined>;
  /** The policy name a connection serves, or undefined for an unknown connection. */
  connectionPolicy(connectionId: string): Promise<string | undefined>;
  /**
   * Inside a transaction: locks the tenant's row until it ends, by writing it (a no-op
   * update both engines accept). A read-modify-write across the tenant's rows (counting
   * before adding, checking roles before changing them) takes it first, so concurrent
   * writers — at READ COMMITTED on several nodes too — run one after the other.
   * Throws {@link UnknownTenantError} for an unknown tenant.
   */
  lock(tenantId: string): Promise<void>;
}

interface TenantRow {
  id: string;
  name: string;
  kind: AccountKind;
  created_at: number;
}

interface ConnectionRow {
  tenant_id: string;
  connection_id: string;
  policy_name: string;
  label: string | null;
}

/** The row lock of {@link TenantRepository.lock}; other repositories take the same one. */
export const LOCK_TENANT = 'UPDATE tenants SET kind = kind WHERE id = ?';

// The key columns by kind: fixed texts, never built from input.
const SELECT_KEY_HASH = {
  discovery: 'SELECT discovery_key_hash AS hash FROM tenants WHERE id = ?',
  admin: 'SELECT admin_key_hash AS hash FROM tenants WHERE id = ?',
} as const;
const UPDATE_KEY_HASH = {
  discovery: 'UPDATE tenants SET discovery_key_hash = ? WHERE id = ?',
  admin: 'UPDATE tenants SET admin_key_hash = ? WHERE id = ?',
} as const;

/** Builds the tenant repository over an open, migrated database. */
export function createTenantRepository(db: SqlHandle, now: () => number): TenantRepository {
  const summarize = (t: TenantRow, connections: readonly ConnectionRow[]): TenantSummary => ({
    id: t.id,
    name: t.name,
    kind: t.kind,
    createdAt: t.created_at,
    connections: connections.map((c) => ({ connectionId: c.connection_id, policyName: c.policy_name, label: c.label })),
  });

  const exists = async (tenantId: string) => (await db.get('SELECT 1 AS one FROM tenants WHERE id = ?', [tenantId])) !== undefined;
  const keyHash = async (tenantId: string, kind: TenantKeyKind) => (await db.get<{ hash: Buffer }>(SELECT_KEY_HASH[kind], [tenantId]))?.hash;
  const requireTenant = async (tenantId: string) => {
    if (!(await exists(tenantId))) throw new UnknownTenantError(tenantId);
  };

  return {
    async create(name) {
      const keys = { tenantId: randomUUID(), discoveryApiKey: generateSecret('dk'), adminApiKey: generateSecret('ak') };
      await db.run('INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES (?, ?, ?, ?, ?)', [
        keys.tenantId,
        name,
        hashSecret(keys.discoveryApiKey),
        hashSecret(keys.adminApiKey),
        now(),
      ]);
      return keys;
    },
    exists,
    async get(tenantId) {
      const row = await db.get<TenantRow>('SELECT id, name, kind, created_at FROM tenants WHERE id = ?', [tenantId]);
      if (row === undefined) return undefined;
      const connections = await db.all<ConnectionRow>(
        'SELECT tenant_id, connection_id, policy_name, label FROM connections WHERE tenant_id = ? ORDER BY created_at, connection_id',
        [tenantId],
      );
      return summarize(row, connections);
    },
    async list() {
      const tenants = await db.all<TenantRow>('SELECT id, name, kind, created_at FROM tenants ORDER BY created_at, id');
      const connections = await db.all<ConnectionRow>(
        'SELECT tenant_id, connection_id, policy_name, label FROM connections ORDER BY created_at, connection_id',
      );
      const byTenant = new Map<string, ConnectionRow[]>();
      for (const c of connections) {
        const list = byTenant.get(c.tenant_id);
        if (list === undefined) byTenant.set(c.tenant_id, [c]);
        else list.push(c);
      }
      return tenants.map((t) => summarize(t, byTenant.get(t.id) ?? []));
    },
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
    async pushOnChange(tenantId) {
      const row = await db.get<{ push_on_change: number }>('SELECT push_on_change FROM tenants WHERE id = ?', [tenantId]);
      return row !== undefined && Number(row.push_on_change) === 1;
    },
    async setPushOnChange(tenantId, on) {
      return (await db.run('UPDATE tenants SET push_on_change = ? WHERE id = ?', [on ? 1 : 0, tenantId])).changes === 1;
    },
    async rotateKey(tenantId, kind) {
      const key = generateSecret(kind === 'discovery' ? 'dk' : 'ak');
      const { changes } = await db.run(UPDATE_KEY_HASH[kind], [hashSecret(key), tenantId]);
      if (changes === 0) throw new UnknownTenantError(tenantId);
      return key;
    },
    async verifyKey(tenantId, kind, key) {
      return keyMatches(await keyHash(tenantId, kind), key);
    },
    keyHash,
    async verifyConnection(connectionId, secret) {
      const row = await db.get<{ tenant_id: string; secret_hash: Buffer; policy_name: string }>(
        'SELECT tenant_id, secret_hash, policy_name FROM connections WHERE connection_id = ?',
        [connectionId],
      );
      if (!secretMatches(secret, row?.secret_hash)) return undefined;
      return { tenantId: row!.tenant_id, connectionId, policyName: row!.policy_name };
    },
    async lock(tenantId) {
      const { changes } = await db.run(LOCK_TENANT, [tenantId]);
      if (changes === 0) throw new UnknownTenantError(tenantId);
    },
    async connectionPolicy(connectionId) {
      const row = await db.get<{ policy_name: string }>('SELECT policy_name FROM connections WHERE connection_id = ?', [connectionId]);
      return row?.policy_name;
    },
  };
}

/**
 * Whether `key`, or any of several candidate readings of one credential, matches a stored key
 * hash (undefined for an unknown tenant: never a match). Constant time, and no early exit:
 * each candidate costs one comparison whichever matches.
 */
export function keyMatches(storedHash: Buffer | undefined, key: string | readonly string[]): boolean {
  let matched = false;
  for (const candidate of typeof key === 'string' ? [key] : key) matched = secretMatches(candidate, storedHash) || matched;
  return matched;
}

/** The CLI named a tenant that does not exist. */
export class UnknownTenantError extends Error {
  constructor(readonly tenantId: string) {
    super(`unknown tenant ${tenantId}`);
    this.name = 'UnknownTenantError';
  }
}
