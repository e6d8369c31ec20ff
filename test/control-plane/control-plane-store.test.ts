import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { createTenant, openControlPlaneStore, UnknownTenantError } from '../../src/control-plane';
import { seedDirectory } from './fixture';

describe('openControlPlaneStore', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-store-'));
    file = join(dir, 'control-plane.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const newTenant = (store: ReturnType<typeof openControlPlaneStore>, name = 'acme') =>
    createTenant(store, { name, directory: { roles: seedDirectory.roles, users: [], resources: [] } });

  it('uses WAL, foreign keys and a schema version, in an owner-only file', () => {
    file = join(dir, 'nested', 'control-plane.db');
    const store = openControlPlaneStore(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(store.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.db.pragma('user_version', { simple: true })).toBe(3);
    store.close();
  });

  it('keeps the database, its -wal/-shm files and its folder owner-only, narrowing a file created world-readable', () => {
    file = join(dir, 'nested', 'control-plane.db');
    const first = openControlPlaneStore(file);
    newTenant(first);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    first.close();
    const widened = join(dir, 'old.db');
    writeFileSync(widened, '', { mode: 0o644 });
    openControlPlaneStore(widened).close();
    expect(statSync(widened).mode & 0o777).toBe(0o600);
  });

  it('keeps tenants, connections and directories across a reopen of the same file', () => {
    const first = openControlPlaneStore(file, { now: () => 1_700_000_000_000 });
    const keys = newTenant(first);
    const conn = first.tenants.addConnection(keys.tenantId, 'rebac');
    first.directory.change(keys.tenantId, { op: 'user.put', user: { id: 'u1', email: 'u1@x.test', name: 'U', roles: ['viewer'] } });
    first.close();

    const second = openControlPlaneStore(file);
    expect(second.tenants.list()).toEqual([
      { id: keys.tenantId, name: 'acme', kind: 'organization', createdAt: 1_700_000_000_000, connections: [{ connectionId: conn.connectionId, policyName: 'rebac' }] },
    ]);
    expect(second.verifyTenantKey(keys.tenantId, 'admin', keys.adminApiKey)).toBe(true);
    expect(second.verifyTenantKey(keys.tenantId, 'discovery', keys.discoveryApiKey)).toBe(true);
    expect(second.verifyConnection(conn.connectionId, conn.connectionSecret)).toEqual({
      tenantId: keys.tenantId,
      connectionId: conn.connectionId,
      policyName: 'rebac',
    });
    expect(second.directory.snapshot(keys.tenantId)?.revision).toBe(2);
    expect(second.directory.snapshot(keys.tenantId)?.users.map((u) => u.id)).toEqual(['u1']);
    second.close();
  });

  it('stores keys and secrets only as hashes (the plain text is nowhere in the file)', () => {
    const store = openControlPlaneStore(file);
    const keys = newTenant(store);
    const conn = store.tenants.addConnection(keys.tenantId, 'rbac');
    store.db.pragma('wal_checkpoint(TRUNCATE)');
    store.close();
    const bytes = Buffer.concat([file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    for (const secret of [keys.adminApiKey, keys.discoveryApiKey, conn.connectionSecret]) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(bytes.includes(Buffer.from(secret.slice(3)))).toBe(false);
    }
    expect(bytes.includes(Buffer.from(keys.tenantId))).toBe(true);
  });

  it('verifies keys by kind and tenant, and rotation revokes the old key at once', () => {
    const store = openControlPlaneStore(file);
    const a = newTenant(store, 'a');
    const b = newTenant(store, 'b');
    expect(a.adminApiKey).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
    expect(a.discoveryApiKey).toMatch(/^dk_[A-Za-z0-9_-]{43}$/);
    expect(store.verifyTenantKey(a.tenantId, 'discovery', a.adminApiKey)).toBe(false);
    expect(store.verifyTenantKey(a.tenantId, 'admin', b.adminApiKey)).toBe(false);
    expect(store.verifyTenantKey('no-such-tenant', 'admin', a.adminApiKey)).toBe(false);
    expect(store.verifyTenantKey(a.tenantId, 'admin', '')).toBe(false);
    const rotated = store.tenants.rotateKey(a.tenantId, 'admin');
    expect(store.verifyTenantKey(a.tenantId, 'admin', a.adminApiKey)).toBe(false);
    expect(store.verifyTenantKey(a.tenantId, 'admin', rotated)).toBe(true);
    expect(store.verifyTenantKey(a.tenantId, 'discovery', a.discoveryApiKey)).toBe(true);
    expect(() => store.tenants.rotateKey('nope', 'admin')).toThrow(UnknownTenantError);
    expect(() => store.tenants.addConnection('nope', 'rbac')).toThrow(UnknownTenantError);
    store.close();
  });

  it('rejects unknown connections and wrong secrets', () => {
    const store = openControlPlaneStore(file);
    const a = newTenant(store);
    const conn = store.tenants.addConnection(a.tenantId, 'rbac');
    const other = store.tenants.addConnection(a.tenantId, 'rbac');
    expect(store.verifyConnection(conn.connectionId, other.connectionSecret)).toBeUndefined();
    expect(store.verifyConnection('unknown', conn.connectionSecret)).toBeUndefined();
    expect(store.verifyConnection(conn.connectionId, '')).toBeUndefined();
    store.close();
  });

  it('upgrades a version-1 database to signed images (migration 2), keeping its data', () => {
    const first = openControlPlaneStore(file);
    const a = newTenant(first);
    // What a version-1 build left: no signing tables (nor later ones), user_version 1.
    first.db.exec('DROP TABLE policy_signatures; DROP TABLE signing_keys; DROP TABLE audit_log; DROP TABLE tenant_members; ALTER TABLE tenants DROP COLUMN kind;');
    first.db.pragma('user_version = 1');
    first.close();
    const store = openControlPlaneStore(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(3);
    expect(store.tenants.exists(a.tenantId)).toBe(true);
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) } as const;
    expect(store.signingKeys.add(a.tenantId, 'kid-1', jwk)).toEqual({ created: true });
    expect(store.signingKeys.list(a.tenantId)).toEqual([{ kid: 'kid-1', jwk, createdAt: expect.any(Number) }]);
    store.close();
  });

  it('upgrades a version-2 database to accounts (migration 3): its tenants become organizations without members', () => {
    const first = openControlPlaneStore(file);
    const a = newTenant(first);
    // What a version-2 build left: no kind column, no members table, user_version 2.
    first.db.exec('DROP TABLE audit_log; DROP TABLE tenant_members; ALTER TABLE tenants DROP COLUMN kind;');
    first.db.pragma('user_version = 2');
    first.close();
    const store = openControlPlaneStore(file);
    expect(store.db.pragma('user_version', { simple: true })).toBe(3);
    expect(store.members.kind(a.tenantId)).toBe('organization');
    expect(store.members.members(a.tenantId)).toEqual([]);
    expect(store.verifyTenantKey(a.tenantId, 'admin', a.adminApiKey)).toBe(true);
    store.close();
  });

  it('refuses a database written by a newer build', () => {
    const db = new Database(file);
    db.pragma('user_version = 99');
    db.close();
    expect(() => openControlPlaneStore(file)).toThrow(/schema version 99/);
  });

  it('never loses an update when two handles (as two processes would) write the same directory', () => {
    const one = openControlPlaneStore(file);
    const two = openControlPlaneStore(file);
    const a = newTenant(one);
    one.directory.change(a.tenantId, { op: 'user.put', user: { id: 'u1', email: 'u1@x.test', name: 'U', roles: [] } });
    for (let i = 0; i < 20; i += 1) {
      const store = i % 2 === 0 ? one : two;
      store.directory.change(a.tenantId, { op: 'relation.add', resource_id: `r${i}`, relation: 'reader', user_id: 'u1' });
    }
    const snapshot = two.directory.snapshot(a.tenantId)!;
    expect(snapshot.revision).toBe(22);
    expect(snapshot.resources).toHaveLength(20);
    const log = one.directory.changesSince(a.tenantId, 1);
    expect(log.kind === 'changes' && log.changes.map((c) => c.rev)).toEqual(Array.from({ length: 21 }, (_, i) => i + 2));
    one.close();
    two.close();
  });
});
