import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  controlPlaneDbPath,
  openControlPlaneStore,
  seedControlPlane,
  type ControlPlaneStore,
} from '../../src/control-plane';
import { DEMO_TENANT_FILE, readDemoTenantFile } from '../../src/config';
import { PolicyValidationError, readPolicyFolder } from '../../src/policy';
import { URLS, policiesDir, seedDirectory } from './fixture';

describe('seedControlPlane', () => {
  let dir: string;
  let store: ControlPlaneStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-seed-'));
    store = openControlPlaneStore(controlPlaneDbPath(dir));
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seed = (policies = policiesDir) =>
    seedControlPlane(store, { policiesDir: policies, directorySeed: seedDirectory, dataDir: dir, urls: URLS });

  it('creates the demo tenant, its connection, images and directory, and writes demo-tenant.json (0600)', () => {
    const demo = seed();
    expect(demo).toBeDefined();
    const file = join(dir, DEMO_TENANT_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    expect(Object.keys(json).sort()).toEqual(
      ['admin_api_key', 'app_url', 'auth_url', 'connection_id', 'connection_secret', 'discovery_api_key', 'relay_url', 'tenant_id'],
    );
    expect(json).toEqual(demo);
    expect(json).toMatchObject(URLS);

    const [tenant] = store.tenants.list();
    expect(tenant).toMatchObject({ id: demo!.tenant_id, name: 'demo', connections: [{ connectionId: demo!.connection_id, policyName: 'rbac' }] });
    expect(store.verifyTenantKey(demo!.tenant_id, 'discovery', demo!.discovery_api_key)).toBe(true);
    expect(store.verifyTenantKey(demo!.tenant_id, 'admin', demo!.admin_api_key)).toBe(true);
    expect(store.verifyConnection(demo!.connection_id, demo!.connection_secret)?.tenantId).toBe(demo!.tenant_id);
    for (const name of ['rbac', 'rebac', 'todo']) {
      expect(store.images.tagged(demo!.tenant_id, name)?.image.digest).toBe(readPolicyFolder(join(policiesDir, name)).digest);
    }
    expect(store.directory.snapshot(demo!.tenant_id)).toEqual({ ...seedDirectory, revision: 1 });
  });

  it('changes nothing on later starts (no new keys, file untouched)', () => {
    const demo = seed()!;
    const file = join(dir, DEMO_TENANT_FILE);
    const before = readFileSync(file, 'utf8');
    const mtime = statSync(file).mtimeMs;
    store.close();
    store = openControlPlaneStore(controlPlaneDbPath(dir));
    expect(seed()).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(statSync(file).mtimeMs).toBe(mtime);
    expect(store.tenants.list()).toHaveLength(1);
    expect(store.verifyTenantKey(demo.tenant_id, 'admin', demo.admin_api_key)).toBe(true);
    expect(store.directory.snapshot(demo.tenant_id)?.revision).toBe(1);
    expect(store.images.versions(demo.tenant_id, 'rbac')).toHaveLength(1);
    expect(readDemoTenantFile(dir)).toEqual(demo);
  });

  it('stops on an invalid seed policy with file:line, and writes nothing', () => {
    const broken = mkdtempSync(join(tmpdir(), 'outpost-cp-policies-'));
    try {
      cpSync(join(policiesDir, 'rbac'), join(broken, 'rbac'), { recursive: true });
      writeFileSync(join(broken, 'rbac', 'rbac.cedar'), 'permit (\n  principal,\n  action == Outpost::Action::"FLY",\n  resource\n);\n');
      let error: unknown;
      try {
        seed(broken);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(PolicyValidationError);
      expect((error as Error).message).toMatch(/rbac\.cedar:\d+/);
      expect(store.tenants.list()).toEqual([]);
      expect(() => readDemoTenantFile(dir)).toThrow();
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });

  it('rolls the database back when demo-tenant.json cannot be written', () => {
    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'x');
    expect(() =>
      seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: join(notADir, 'sub'), urls: URLS }),
    ).toThrow();
    expect(store.tenants.list()).toEqual([]);
    expect(seed()).toBeDefined();
  });
});
