import { randomUUID } from 'node:crypto';
import type { SqlHandle } from './in-transaction';
import type { AccountKind } from './account';
import { connectionSummary, createConnectionRepository, SELECT_CONNECTIONS, type ConnectionRepository, type ConnectionRow, type ConnectionSummary } from './connection-repository';
import { hashSecret } from './secrets';
import { createTenantKeyRepository, generateTenantKey, type TenantKeyRepository } from './tenant-keys';
import { UnknownTenantError } from './unknown-tenant-error';

/** A tenant as listed by the CLI (never with secrets: only their hashes are stored). */
export interface TenantSummary {
  readonly id: string;
  readonly name: string;
  readonly kind: AccountKind;
  readonly createdAt: number;
  readonly connections: readonly ConnectionSummary[];
}

/** The only moment a new tenant's keys exist in plain text: show them once, then forget them. */
export interface NewTenantKeys {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
  readonly adminApiKey: string;
}

/** Tenants, their keys (`tenant-keys.ts`) and their edge connections (`connection-repository.ts`). */
export interface TenantRepository extends TenantKeyRepository, ConnectionRepository {
  create(name: string): Promise<NewTenantKeys>;
  exists(tenantId: string): Promise<boolean>;
  /** One tenant with its connections; undefined when unknown. */
  get(tenantId: string): Promise<TenantSummary | undefined>;
  list(): Promise<TenantSummary[]>;
  /**
   * Whether a directory change or a policy push is broadcast to the tenant's edges by itself
   * (docs/reference/api.md, "Push on change"); false for an unknown tenant.
   */
  pushOnChange(tenantId: string): Promise<boolean>;
  /** Turns push on change on or off; false for an unknown tenant. */
  setPushOnChange(tenantId: string, on: boolean): Promise<boolean>;
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

/** The row lock of {@link TenantRepository.lock}; other repositories take the same one. */
export const LOCK_TENANT = 'UPDATE tenants SET kind = kind WHERE id = ?';

const summarize = (t: TenantRow, connections: readonly ConnectionRow[]): TenantSummary => ({
  id: t.id,
  name: t.name,
  kind: t.kind,
  createdAt: t.created_at,
  connections: connections.map(connectionSummary),
});

/** Builds the tenant repository over an open, migrated database. */
export function createTenantRepository(db: SqlHandle, now: () => number): TenantRepository {
  const exists = async (tenantId: string) => (await db.get('SELECT 1 AS one FROM tenants WHERE id = ?', [tenantId])) !== undefined;
  const requireTenant = async (tenantId: string) => {
    if (!(await exists(tenantId))) throw new UnknownTenantError(tenantId);
  };

  return {
    ...createTenantKeyRepository(db),
    ...createConnectionRepository(db, now, requireTenant),
    async create(name) {
      const keys = { tenantId: randomUUID(), discoveryApiKey: generateTenantKey('discovery'), adminApiKey: generateTenantKey('admin') };
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
      const connections = await db.all<ConnectionRow>(`${SELECT_CONNECTIONS} WHERE tenant_id = ? ORDER BY created_at, connection_id`, [tenantId]);
      return summarize(row, connections);
    },
    async list() {
      const tenants = await db.all<TenantRow>('SELECT id, name, kind, created_at FROM tenants ORDER BY created_at, id');
      const connections = await db.all<ConnectionRow>(`${SELECT_CONNECTIONS} ORDER BY created_at, connection_id`);
      const byTenant = new Map<string, ConnectionRow[]>();
      for (const c of connections) {
        const list = byTenant.get(c.tenant_id);
        if (list === undefined) byTenant.set(c.tenant_id, [c]);
        else list.push(c);
      }
      return tenants.map((t) => summarize(t, byTenant.get(t.id) ?? []));
    },
    async pushOnChange(tenantId) {
      const row = await db.get<{ push_on_change: number }>('SELECT push_on_change FROM tenants WHERE id = ?', [tenantId]);
      return row !== undefined && Number(row.push_on_change) === 1;
    },
    async setPushOnChange(tenantId, on) {
      return (await db.run('UPDATE tenants SET push_on_change = ? WHERE id = ?', [on ? 1 : 0, tenantId])).changes === 1;
    },
    async lock(tenantId) {
      const { changes } = await db.run(LOCK_TENANT, [tenantId]);
      if (changes === 0) throw new UnknownTenantError(tenantId);
    },
  };
}
