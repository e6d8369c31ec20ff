import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { REGISTRATION_BUSY_TIMEOUT_MS } from '../../src/relay/relay-database';
import { createTenant, openControlPlaneStore, SERVER_BUSY_TIMEOUT_MS, UnknownTenantError, type ControlPlaneLocation, type ControlPlaneStore } from '../../src/control-plane';
import { recordCliAudit } from '../../src/control-plane/audit-repository';
import { migrateSchema } from '../../src/control-plane/migrations/migrate-schema';
import { SQLITE_MIGRATION_PLAN } from '../../src/control-plane/migrations/sqlite-migrations';
import { openPostgresDatabase, openSqliteDatabase } from '../../src/sql';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { seedDirectory } from './fixture';
import { createSigningKeyRepository } from '../../src/signing-keys/signing-key-repository';

const newTenant = (store: ControlPlaneStore, name = 'acme') =>
  createTenant(store, { name, directory: { roles: seedDirectory.roles, users: [], resources: [] } });

describe.each(SQL_ENGINES)('openControlPlaneStore on $name', (engine) => {
  let dir: string;
  let at: ControlPlaneLocation;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), `outpost-cp-store-${engine.name}-`));
    at = await engine.location(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('migrates to the newest version, and the foreign keys hold', async () => {
    const store = await openControlPlaneStore(at);
    // A tenant's rows refuse a tenant that does not exist (SQLite: foreign keys are per connection).
    await expect(store.directory.initialize('no-such-tenant', { roles: [], users: [], resources: [] })).rejects.toMatchObject({
      code: engine.name === 'sqlite' ? 'SQLITE_CONSTRAINT_FOREIGNKEY' : '23503',
    });
    await store.close();
  });

  it('refuses a database written by a newer build', async () => {
    if (typeof at === 'string') {
      const db = new Database(at);
      db.pragma('user_version = 99');
      db.close();
    } else {
      await (await openControlPlaneStore(at)).close();
      const db = openPostgresDatabase(at.databaseUrl);
      await db.run('INSERT INTO schema_version (version, applied_at) VALUES (99, 0)');
      await db.close();
    }
    await expect(openControlPlaneStore(at)).rejects.toThrow(/schema version 99/);
  });

  it('orders images pushed in the same millisecond by push, newest first', async () => {
    const store = await openControlPlaneStore(at, { now: () => 1_700_000_000_000 });
    const a = await newTenant(store);
    const digests = ['9', '1', '5'].map((c) => `sha256:${c.repeat(64)}`);
    for (const digest of digests) await store.images.push(a.tenantId, { name: 'rbac', digest, files: {} } as never);
    expect((await store.images.versions(a.tenantId, 'rbac')).map((v) => v.digest)).toEqual([...digests].reverse());
    await store.close();
  });

  it('keeps tenants, connections and directories across a reopen of the same database', async () => {
    const first = await openControlPlaneStore(at, { now: () => 1_700_000_000_000 });
    const keys = await newTenant(first);
    const conn = await first.tenants.addConnection(keys.tenantId, 'rebac');
    await first.directory.change(keys.tenantId, { op: 'user.put', user: { id: 'u1', email: 'u1@x.test', name: 'U', roles: ['viewer'] } });
    await first.close();

    const second = await openControlPlaneStore(at);
    expect(await second.tenants.list()).toEqual([
      { id: keys.tenantId, name: 'acme', kind: 'organization', createdAt: 1_700_000_000_000, connections: [{ connectionId: conn.connectionId, policyName: 'rebac', label: null }] },
    ]);
    expect(await second.verifyTenantKey(keys.tenantId, 'admin', keys.adminApiKey)).toBe(true);
    expect(await second.verifyTenantKey(keys.tenantId, 'discovery', keys.discoveryApiKey)).toBe(true);
    expect(await second.verifyConnection(conn.connectionId, conn.connectionSecret)).toEqual({
      tenantId: keys.tenantId,
      connectionId: conn.connectionId,
      policyName: 'rebac',
    });
    expect((await second.directory.snapshot(keys.tenantId))?.revision).toBe(2);
    expect((await second.directory.snapshot(keys.tenantId))?.users.map((u) => u.id)).toEqual(['u1']);
    await second.close();
  });
  it('verifies keys by kind and tenant, and rotation revokes the old key at once', async () => {
    const store = await openControlPlaneStore(at);
    const a = await newTenant(store, 'a');
    const b = await newTenant(store, 'b');
    expect(a.adminApiKey).toMatch(/^ak_[A-Za-z0-9_-]{43}$/);
    expect(a.discoveryApiKey).toMatch(/^dk_[A-Za-z0-9_-]{43}$/);
    expect(await store.verifyTenantKey(a.tenantId, 'discovery', a.adminApiKey)).toBe(false);
    expect(await store.verifyTenantKey(a.tenantId, 'admin', b.adminApiKey)).toBe(false);
    expect(await store.verifyTenantKey('no-such-tenant', 'admin', a.adminApiKey)).toBe(false);
    expect(await store.verifyTenantKey(a.tenantId, 'admin', '')).toBe(false);
    const rotated = await store.tenants.rotateKey(a.tenantId, 'admin');
    expect(await store.verifyTenantKey(a.tenantId, 'admin', a.adminApiKey)).toBe(false);
    expect(await store.verifyTenantKey(a.tenantId, 'admin', rotated)).toBe(true);
    expect(await store.verifyTenantKey(a.tenantId, 'discovery', a.discoveryApiKey)).toBe(true);
    await expect(store.tenants.rotateKey('nope', 'admin')).rejects.toThrow(UnknownTenantError);
    await expect(store.tenants.addConnection('nope', 'rbac')).rejects.toThrow(UnknownTenantError);
    await store.close();
  });
  it("labels a connection when it is made, or later only when it has none and only as its own tenant's", async () => {
    const store = await openControlPlaneStore(at);
    const a = await newTenant(store, 'a');
    const b = await newTenant(store, 'b');
    const sidecar = await store.tenants.addConnection(a.tenantId, 'rbac', 'sidecar');
    const bare = await store.tenants.addConnection(a.tenantId, 'rbac');
    expect(await store.tenants.labelConnection(b.tenantId, bare.connectionId, 'not yours')).toBe(false);
    expect(await store.tenants.labelConnection(a.tenantId, sidecar.connectionId, 'renamed')).toBe(false);
    expect(await store.tenants.labelConnection(a.tenantId, bare.connectionId, 'todo app')).toBe(true);
    expect(await store.tenants.labelConnection(a.tenantId, bare.connectionId, 'again')).toBe(false);
    const labels = Object.fromEntries((await store.tenants.get(a.tenantId))!.connections.map((c) => [c.connectionId, c.label]));
    expect(labels).toEqual({ [sidecar.connectionId]: 'sidecar', [bare.connectionId]: 'todo app' });
    await store.close();
  });
  it('rejects unknown connections and wrong secrets', async () => {
    const store = await openControlPlaneStore(at);
    const a = await newTenant(store);
    const conn = await store.tenants.addConnection(a.tenantId, 'rbac');
    const other = await store.tenants.addConnection(a.tenantId, 'rbac');
    expect(await store.verifyConnection(conn.connectionId, other.connectionSecret)).toBeUndefined();
    expect(await store.verifyConnection('unknown', conn.connectionSecret)).toBeUndefined();
    expect(await store.verifyConnection(conn.connectionId, '')).toBeUndefined();
    await store.close();
  });
  it('never loses an update when two handles (as two processes would) write the same directory', async () => {
    const one = await openControlPlaneStore(at);
    const two = await openControlPlaneStore(at);
    const a = await newTenant(one);
    await one.directory.change(a.tenantId, { op: 'user.put', user: { id: 'u1', email: 'u1@x.test', name: 'U', roles: [] } });
    for (let i = 0; i < 20; i += 1) {
      const store = i % 2 === 0 ? one : two;
      await store.directory.change(a.tenantId, { op: 'relation.add', resource_id: `r${i}`, relation: 'reader', user_id: 'u1' });
    }
    const snapshot = (await two.directory.snapshot(a.tenantId))!;
    expect(snapshot.revision).toBe(22);
    expect(snapshot.resources).toHaveLength(20);
    const log = await one.directory.changesSince(a.tenantId, 1);
    expect(log.kind === 'changes' && log.changes.map((c) => c.rev)).toEqual(Array.from({ length: 21 }, (_, i) => i + 2));
    await one.close();
    await two.close();
  });
});

describe('openControlPlaneStore on a SQLite file (file modes, WAL, the file\'s bytes, upgrades of older files)', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-store-'));
    file = join(dir, 'control-plane.db');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('waits for another process\'s lock only as long as each handle was told: the store its own time-out, the relay\'s handle the relay\'s', async () => {
    // What bounds a request on a locked file is SQLite's busy_timeout on the handle, read back
    // here, rather than timed in the locked-database tests (a time bound flakes under load).
    const store = await openControlPlaneStore(file, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
    const relayHandle = await store.openRegistrationDatabase({ busyTimeoutMs: REGISTRATION_BUSY_TIMEOUT_MS });
    const own = await openSqliteDatabase(file, { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
    try {
      await expect(relayHandle.get('PRAGMA busy_timeout')).resolves.toEqual({ timeout: REGISTRATION_BUSY_TIMEOUT_MS });
      await expect(own.get('PRAGMA busy_timeout')).resolves.toEqual({ timeout: SERVER_BUSY_TIMEOUT_MS });
    } finally {
      await Promise.all([relayHandle.close(), own.close()]);
      await store.close();
    }
  });

  /** Rewinds the file to what an older build left: `script` undoes later migrations. */
  const downgrade = (script: string, version: number) => {
    const raw = new Database(file);
    // Migrations 10, 9, 8 (a CHECK only), 7, 6 and 5 are undone first in every rewind below them.
    raw.exec('ALTER TABLE tenants DROP COLUMN push_on_change; DROP TABLE decisions;');
    raw.exec('ALTER TABLE connections DROP COLUMN label; ALTER TABLE audit_log DROP COLUMN actor_kind;');
    if (version < 6) raw.exec('DROP TABLE policy_versions; ALTER TABLE policy_signatures DROP COLUMN version;');
    if (version < 5) raw.exec('DROP INDEX policy_images_by_seq; ALTER TABLE policy_images DROP COLUMN seq;');
    raw.exec(script);
    raw.pragma(`user_version = ${version}`);
    raw.close();
  };
  const userVersion = () => {
    const raw = new Database(file, { readonly: true });
    const version = raw.pragma('user_version', { simple: true });
    raw.close();
    return version;
  };

  it('uses WAL, foreign keys and a schema version, in an owner-only file', async () => {
    file = join(dir, 'nested', 'control-plane.db');
    const store = await openControlPlaneStore(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(10);
    raw.close();
    // Foreign keys are per connection: a tenant's rows refuse a tenant that does not exist.
    await expect(store.directory.initialize('no-such-tenant', { roles: [], users: [], resources: [] })).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    await store.close();
  });

  it('keeps the database, its -wal/-shm files and its folder owner-only, narrowing a file created world-readable', async () => {
    file = join(dir, 'nested', 'control-plane.db');
    const first = await openControlPlaneStore(file);
    await newTenant(first);
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(statSync(f).mode & 0o777).toBe(0o600);
    await first.close();
    const widened = join(dir, 'old.db');
    writeFileSync(widened, '', { mode: 0o644 });
    await (await openControlPlaneStore(widened)).close();
    expect(statSync(widened).mode & 0o777).toBe(0o600);
  });

  it('stores keys and secrets only as hashes (the plain text is nowhere in the file)', async () => {
    const store = await openControlPlaneStore(file);
    const keys = await newTenant(store);
    const conn = await store.tenants.addConnection(keys.tenantId, 'rbac');
    await store.close();
    const raw = new Database(file);
    raw.pragma('wal_checkpoint(TRUNCATE)');
    raw.close();
    const bytes = Buffer.concat([file, `${file}-wal`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
    for (const secret of [keys.adminApiKey, keys.discoveryApiKey, conn.connectionSecret]) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(bytes.includes(Buffer.from(secret.slice(3)))).toBe(false);
    }
    expect(bytes.includes(Buffer.from(keys.tenantId))).toBe(true);
  });

  it('upgrades a version-1 database to signed images (migration 2), keeping its data', async () => {
    const first = await openControlPlaneStore(file);
    const a = await newTenant(first);
    await first.close();
    // What a version-1 build left: no signing tables (nor later ones), user_version 1.
    downgrade(
      'DROP TABLE policy_signatures; DROP TABLE signing_keys; DROP TABLE audit_log; DROP TABLE tenant_members; ALTER TABLE tenants DROP COLUMN kind;',
      1,
    );
    const store = await openControlPlaneStore(file);
    expect(userVersion()).toBe(10);
    expect(await store.tenants.exists(a.tenantId)).toBe(true);
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) } as const;
    expect(await createSigningKeyRepository(store.sql).add(a.tenantId, 'kid-1', jwk)).toEqual({ created: true });
    expect(await createSigningKeyRepository(store.sql).list(a.tenantId)).toEqual([{ kid: 'kid-1', jwk, createdAt: expect.any(Number) }]);
    await store.close();
  });

  it('upgrades a version-2 database to accounts (migration 3): its tenants become organizations without members', async () => {
    const first = await openControlPlaneStore(file);
    const a = await newTenant(first);
    await first.close();
    // What a version-2 build left: no kind column, no members table, user_version 2.
    downgrade('DROP TABLE audit_log; DROP TABLE tenant_members; ALTER TABLE tenants DROP COLUMN kind;', 2);
    const store = await openControlPlaneStore(file);
    expect(userVersion()).toBe(10);
    expect(await store.members.kind(a.tenantId)).toBe('organization');
    expect(await store.members.members(a.tenantId)).toEqual([]);
    expect(await store.verifyTenantKey(a.tenantId, 'admin', a.adminApiKey)).toBe(true);
    await store.close();
  });

  it("upgrades a version-3 database whose relay already made its own table (migration 4), dropping the first release's table", async () => {
    const first = await openControlPlaneStore(file);
    const a = await newTenant(first);
    await first.close();
    // Version 3 builds' relays created relay_instances themselves (same shape); the first
    // release's relay_registrations may still be there.
    downgrade(
      `INSERT INTO relay_instances VALUES ('${a.tenantId}', 'i-1', 'c-1', 'h', '1', 'rbac', NULL, 1, 1, 5, 6);
       CREATE TABLE relay_registrations (instance_id TEXT PRIMARY KEY);`,
      3,
    );
    const store = await openControlPlaneStore(file);
    expect(userVersion()).toBe(10);
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'relay_registrations'").all()).toEqual([]);
    expect(raw.prepare('SELECT instance_id, connected FROM relay_instances').all()).toEqual([{ instance_id: 'i-1', connected: 1 }]);
    raw.close();
    await store.close();
  });

  it('orders images pushed in the same millisecond by push, also for images stored before migration 5', async () => {
    const first = await openControlPlaneStore(file, { now: () => 1_700_000_000_000 });
    const a = await newTenant(first);
    const image = (n: number) => ({ name: 'rbac', digest: `sha256:${String(n).repeat(64).slice(0, 64)}`, files: {} }) as never;
    await first.images.push(a.tenantId, image(1));
    await first.images.push(a.tenantId, image(2));
    await first.close();
    downgrade('', 4);
    const store = await openControlPlaneStore(file, { now: () => 1_700_000_000_000 });
    await store.images.push(a.tenantId, image(3));
    expect((await store.images.versions(a.tenantId, 'rbac')).map((v) => v.digest)).toEqual([image(3), image(2), image(1)].map((i) => (i as { digest: string }).digest));
    await store.close();
  });

  it('upgrades a version-5 database to versioned signatures (migration 6): stored signatures keep no version, no policy has a mark yet', async () => {
    const first = await openControlPlaneStore(file);
    const a = await newTenant(first);
    const image = { name: 'rbac', digest: `sha256:${'1'.repeat(64)}`, files: {} } as never;
    await first.images.push(a.tenantId, image, 'a.b.c');
    await first.close();
    downgrade('', 5);
    const store = await openControlPlaneStore(file);
    expect(userVersion()).toBe(10);
    expect(await store.images.tagged(a.tenantId, 'rbac')).toEqual({ image, signature: 'a.b.c' });
    expect(await store.images.signedVersion(a.tenantId, 'rbac')).toBeUndefined();
    // The first versioned push may carry any version from 1.
    expect(await store.images.push(a.tenantId, image, 'd.e.f', 1)).toEqual({ digest: (image as { digest: string }).digest, created: false });
    expect(await store.images.signedVersion(a.tenantId, 'rbac')).toBe(1);
    await store.close();
  });
  it("upgrades a version-6 database to names (migration 7): its connections have no label, its audit entries are console users'", async () => {
    const first = await openControlPlaneStore(file);
    const a = await newTenant(first);
    const conn = await first.tenants.addConnection(a.tenantId, 'rbac');
    await first.close();
    const raw = new Database(file);
    raw.exec('ALTER TABLE tenants DROP COLUMN push_on_change; DROP TABLE decisions; ALTER TABLE connections DROP COLUMN label; ALTER TABLE audit_log DROP COLUMN actor_kind;');
    raw.prepare("INSERT INTO audit_log (tenant_id, actor, action, target, outcome, at) VALUES (?, 'u-1', 'discovery_key.rotate', NULL, 'ok', 1)").run(a.tenantId);
    raw.pragma('user_version = 6');
    raw.close();
    const store = await openControlPlaneStore(file);
    expect(userVersion()).toBe(10);
    expect((await store.tenants.get(a.tenantId))!.connections).toEqual([{ connectionId: conn.connectionId, policyName: 'rbac', label: null }]);
    expect(await store.audit.list(a.tenantId)).toMatchObject([{ actor: 'u-1', actorKind: 'user', action: 'discovery_key.rotate' }]);
    await store.close();
  });
  it('upgrades a version-7 database so the tenants CLI may write entries (migration 8): every entry, id and the id counter kept', async () => {
    // What a version-7 build left: three entries, the newest since dropped (the id counter remembers it).
    const v7 = await openSqliteDatabase(file);
    await migrateSchema(v7, { ...SQLITE_MIGRATION_PLAN, migrations: SQLITE_MIGRATION_PLAN.migrations.slice(0, 7) });
    await v7.close();
    const old = new Database(file);
    old.prepare("INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES ('t', 't', x'00', x'00', 1)").run();
    for (const [actor, kind] of [['u-1', 'user'], ['admin_key', 'admin_key'], ['u-2', 'user']]) {
      old.prepare("INSERT INTO audit_log (tenant_id, actor, actor_kind, action, target, outcome, at) VALUES ('t', ?, ?, 'a', NULL, 'ok', 1)").run(actor, kind);
    }
    expect(() => old.prepare("INSERT INTO audit_log (tenant_id, actor, actor_kind, action, outcome, at) VALUES ('t', 'x', 'cli', 'a', 'ok', 1)").run()).toThrow(/CHECK/);
    old.prepare("DELETE FROM audit_log WHERE actor = 'u-2'").run();
    old.close();

    const store = await openControlPlaneStore(file, { now: () => 5 });
    expect(userVersion()).toBe(10);
    await recordCliAudit(store.audit, 't', 'member.remove', 'u-1');
    expect((await store.audit.list('t')).map((e) => [e.id, e.actor, e.actorKind])).toEqual([
      [4, 'tenants_cli', 'cli'],
      [2, 'admin_key', 'admin_key'],
      [1, 'u-1', 'user'],
    ]);
    await expect(store.audit.record('t', { actor: 'x', actorKind: 'robot' as never, action: 'a', target: null, outcome: 'ok' })).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_CHECK' });
    await store.close();
  });
});
