import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEMO_MEMBERS,
  openControlPlaneStore,
  ensureDemoAccounts,
  ensureDemoAppConnections,
  seedControlPlane,
  type ControlPlaneLocation,
  type ControlPlaneStore,
} from '../../src/control-plane';
import { DEMO_TENANT_FILE, readDemoTenantFile, writeDemoTenantFile } from '../../src/config';
import { PolicyTestsFailedError } from '../../src/decision';
import { PolicyValidationError, readPolicyFolder } from '../../src/policy';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';
import { URLS, policiesDir, seedDirectory } from './fixture';

describe.each(SQL_ENGINES)('seedControlPlane on $name', (engine) => {
  let dir: string;
  let at: ControlPlaneLocation;
  let store: ControlPlaneStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-seed-'));
    at = await engine.location(dir);
    store = await openControlPlaneStore(at);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seed = (policies = policiesDir) =>
    seedControlPlane(store, { policiesDir: policies, directorySeed: seedDirectory, dataDir: dir, urls: URLS });

  it('creates the demo tenant, its connection, images and directory, and writes demo-tenant.json (0600)', async () => {
    const demo = await seed();
    expect(demo).toBeDefined();
    const file = join(dir, DEMO_TENANT_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(json).sort()).toEqual(
      ['admin_api_key', 'app_connections', 'app_url', 'auth_url', 'connection_id', 'connection_secret', 'discovery_api_key', 'relay_url', 'tenant_id'],
    );
    expect(json).toEqual(demo);
    expect(json).toMatchObject(URLS);

    const tenant = (await store.tenants.list()).find((t) => t.id === demo!.tenant_id);
    const apps = demo!.app_connections!;
    expect(tenant!.connections).toHaveLength(3);
    expect(tenant!.connections).toEqual(
      expect.arrayContaining([
        { connectionId: demo!.connection_id, policyName: 'rbac' },
        { connectionId: apps.rbac.connection_id, policyName: 'rbac' },
        { connectionId: apps.todo.connection_id, policyName: 'todo' },
      ]),
    );
    for (const app of [apps.rbac, apps.todo]) expect((await store.verifyConnection(app.connection_id, app.connection_secret))?.tenantId).toBe(demo!.tenant_id);
    expect(await store.verifyTenantKey(demo!.tenant_id, 'discovery', demo!.discovery_api_key)).toBe(true);
    expect(await store.verifyTenantKey(demo!.tenant_id, 'admin', demo!.admin_api_key)).toBe(true);
    expect((await store.verifyConnection(demo!.connection_id, demo!.connection_secret))?.tenantId).toBe(demo!.tenant_id);
    for (const name of ['rbac', 'rebac', 'todo']) {
      expect((await store.images.tagged(demo!.tenant_id, name))?.image.digest).toBe(readPolicyFolder(join(policiesDir, name)).digest);
    }
    expect(await store.directory.snapshot(demo!.tenant_id)).toEqual({ ...seedDirectory, revision: 1 });
  });

  it('changes nothing on later starts (no new keys, file untouched)', async () => {
    const demo = (await seed())!;
    const file = join(dir, DEMO_TENANT_FILE);
    const before = readFileSync(file, 'utf8');
    const mtime = statSync(file).mtimeMs;
    await store.close();
    store = await openControlPlaneStore(at);
    expect(await seed()).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(await store.tenants.list()).toHaveLength(1 + seedDirectory.users.length);
    expect(await store.verifyTenantKey(demo.tenant_id, 'admin', demo.admin_api_key)).toBe(true);
    expect((await store.directory.snapshot(demo.tenant_id))?.revision).toBe(1);
    expect(await store.images.versions(demo.tenant_id, 'rbac')).toHaveLength(1);
    expect(readDemoTenantFile(dir)).toEqual(demo);
  });

  it('adds the apps\' connections to a demo tenant seeded before they existed, once', async () => {
    const { app_connections: _dropped, ...old } = (await seed())!;
    writeDemoTenantFile(dir, old);
    expect(await ensureDemoAppConnections(store, dir)).toBe(true);
    const upgraded = readDemoTenantFile(dir);
    expect(upgraded).toMatchObject(old);
    const rbac = upgraded.app_connections!.rbac;
    expect((await store.verifyConnection(rbac.connection_id, rbac.connection_secret))?.policyName).toBe('rbac');
    expect(await ensureDemoAppConnections(store, dir)).toBe(false);
    expect(readDemoTenantFile(dir)).toEqual(upgraded);
    expect((await store.tenants.list()).find((t) => t.id === upgraded.tenant_id)!.connections).toHaveLength(5); // the 3 the seed made, and 2 more
  });

  it('makes the demo tenant an organization (Rick owner, Morty admin, Beth viewer) and gives each demo user a personal account', async () => {
    const demo = (await seed())!;
    await expectDemoAccounts(demo.tenant_id);
  });

  it('adds the accounts to a data directory seeded before they existed, once', async () => {
    const demo = (await seed())!;
    // What an older build left: no members, no personal accounts.
    const raw = await openLocation(at);
    await raw.exec("DELETE FROM tenant_members; DELETE FROM tenants WHERE kind = 'personal'");
    await raw.close();
    expect(await store.tenants.list()).toHaveLength(1);
    expect(await ensureDemoAccounts(store, dir, seedDirectory)).toBe(true);
    await expectDemoAccounts(demo.tenant_id);
    expect(await ensureDemoAccounts(store, dir, seedDirectory)).toBe(false);
    expect(await store.tenants.list()).toHaveLength(1 + seedDirectory.users.length);
  });

  it('adds no accounts without a demo tenant file', async () => {
    expect(await ensureDemoAccounts(store, dir, seedDirectory)).toBe(false);
    expect(await store.tenants.list()).toHaveLength(0);
  });

  /** The demo organization's members by e-mail, and one personal account per directory user. */
  async function expectDemoAccounts(demoTenantId: string): Promise<void> {
    const emailOf = new Map(seedDirectory.users.map((u) => [u.id, u.email]));
    const members = (await store.members.members(demoTenantId)).map((m) => [emailOf.get(m.userId), m.role]);
    expect(Object.fromEntries(members)).toEqual(DEMO_MEMBERS);
    expect(DEMO_MEMBERS).toEqual({ 'rick@the-citadel.com': 'owner', 'morty@the-citadel.com': 'admin', 'beth@the-smiths.com': 'viewer' });
    expect(await store.members.kind(demoTenantId)).toBe('organization');
    for (const user of seedDirectory.users) {
      const personal = (await store.members.accountsOf(user.id)).filter((a) => a.kind === 'personal');
      expect(personal).toEqual([{ tenantId: expect.any(String), name: `${user.name} (personal)`, kind: 'personal', role: 'owner' }]);
      expect(await store.members.members(personal[0]!.tenantId)).toEqual([{ userId: user.id, role: 'owner', createdAt: expect.any(Number) }]);
    }
  }

  it('adds no app connections without a demo tenant file', async () => {
    expect(await ensureDemoAppConnections(store, dir)).toBe(false);
    expect(await store.tenants.list()).toHaveLength(0);
  });

  it('stops on an invalid seed policy with file:line, and writes nothing', async () => {
    const broken = mkdtempSync(join(tmpdir(), 'outpost-cp-policies-'));
    try {
      cpSync(join(policiesDir, 'rbac'), join(broken, 'rbac'), { recursive: true });
      writeFileSync(join(broken, 'rbac', 'rbac.cedar'), 'permit (\n  principal,\n  action == Outpost::Action::"FLY",\n  resource\n);\n');
      let error: unknown;
      try {
        await seed(broken);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PolicyValidationError);
      expect((error as Error).message).toMatch(/rbac\.cedar:\d+/);
      expect(await store.tenants.list()).toEqual([]);
      expect(() => readDemoTenantFile(dir)).toThrow();
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('stops on a seed policy failing its own tests, naming the failing cases, and writes nothing', async () => {
    const failing = mkdtempSync(join(tmpdir(), 'outpost-cp-policies-'));
    try {
      cpSync(join(policiesDir, 'rbac'), join(failing, 'rbac'), { recursive: true });
      const text = readFileSync(join(failing, 'rbac', 'rbac.cedar'), 'utf8');
      writeFileSync(join(failing, 'rbac', 'rbac.cedar'), text.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"'));
      await expect(seed(failing)).rejects.toThrow(PolicyTestsFailedError);
      await expect(seed(failing)).rejects.toThrow('1 of 8 tests of policy image "rbac" failed: tests/rbac.json "a viewer may not PUT": expected deny, got allow');
      expect(await store.tenants.list()).toEqual([]);
      expect(() => readDemoTenantFile(dir)).toThrow();
    } finally {
      rmSync(failing, { recursive: true, force: true });
    }
  });

  it('rolls the database back when demo-tenant.json cannot be written', async () => {
    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'x');
    await expect(seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: join(notADir, 'sub'), urls: URLS })).rejects.toThrow();
    expect(await store.tenants.list()).toEqual([]);
    expect(await seed()).toBeDefined();
  });
});
