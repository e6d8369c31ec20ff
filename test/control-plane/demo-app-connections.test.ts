/**
 * An app added to apps.json after the first start: the next start gives it its connection in
 * the demo tenant (and its policy's image, which the first start could not push), once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, readDemoTenantFile, writeDemoTenantFile } from '../../src/config';
import { ensureDemoAppConnections, openControlPlaneStore, seedControlPlane, type ControlPlaneStore } from '../../src/control-plane';
import { PolicyTestsFailedError } from '../../src/decision';
import { readPolicyFolder } from '../../src/policy';
import { signedImagePushCheck } from '../../src/signing-keys';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { URLS, policiesDir, seedDirectory } from './fixture';

const listed = loadConfig({}).apps.list;
const addedLater = { connection: 'added-later', policy: 'added-later', label: 'added-later app' };

/** A policy folder `added-later` under `root` (a name no sample and no scaffolded app has): admins may read invoices; its one test expects `decision`. */
function writeAddedLaterPolicy(root: string, decision: 'allow' | 'deny' = 'allow'): string {
  const dir = join(root, 'added-later');
  mkdirSync(join(dir, 'tests'), { recursive: true });
  writeFileSync(join(dir, 'manifest.json'), '{"name": "added-later", "description": "test"}\n');
  writeFileSync(join(dir, 'schema.cedarschema'), 'namespace Outpost {\n  entity Role in [Role];\n  entity User in [Role];\n  entity Invoice;\n  action read appliesTo { principal: User, resource: Invoice };\n}\n');
  writeFileSync(join(dir, 'added-later.cedar'), 'permit (principal in Outpost::Role::"admin", action == Outpost::Action::"read", resource is Outpost::Invoice);\n');
  const directory = { roles: [{ id: 'admin', includes: [] }], users: [{ id: 'ada', email: 'ada@example.com', name: 'Ada', roles: ['admin'] }], resources: [] };
  const test = { name: 'an admin may read', request: { principal: 'ada', action: 'read', resource: { type: 'Invoice', id: 'i-1' } }, directory, decision };
  writeFileSync(join(dir, 'tests', 'added-later.json'), JSON.stringify([test]));
  return root;
}

describe.each(SQL_ENGINES)('ensureDemoAppConnections on $name', (engine) => {
  let dir: string;
  let store: ControlPlaneStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-apps-'));
    store = await openControlPlaneStore(await engine.location(dir));
    await seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS, apps: listed });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("adds a newly listed app's connection and its policy's image, keeping the others, once", async () => {
    const before = readDemoTenantFile(dir);
    const policies = writeAddedLaterPolicy(join(dir, 'policies'));
    expect(await store.images.tagged(before.tenant_id, 'added-later')).toBeUndefined();

    expect(await ensureDemoAppConnections(store, dir, { apps: [...listed, addedLater], policiesDir: policies, pushCheck: signedImagePushCheck() })).toBe(true);
    const after = readDemoTenantFile(dir);
    expect(after).toEqual({ ...before, app_connections: { ...before.app_connections, 'added-later': expect.anything() } });
    const added = after.app_connections!['added-later']!;
    expect((await store.verifyConnection(added.connection_id, added.connection_secret))?.policyName).toBe('added-later');
    const tenant = (await store.tenants.get(before.tenant_id))!;
    expect(tenant.connections.find((c) => c.connectionId === added.connection_id)?.label).toBe('added-later app (embedded edge)');
    expect((await store.images.tagged(before.tenant_id, 'added-later'))?.image.digest).toBe(readPolicyFolder(join(policies, 'added-later')).digest);

    expect(await ensureDemoAppConnections(store, dir, { apps: [...listed, addedLater], policiesDir: policies, pushCheck: signedImagePushCheck() })).toBe(false);
    expect(readDemoTenantFile(dir)).toEqual(after);
    expect((await store.tenants.get(before.tenant_id))!.connections).toHaveLength(tenant.connections.length);
  });

  it('gives a connection without pushing again when the tenant has an image of the policy already', async () => {
    const { tenant_id: tenantId } = readDemoTenantFile(dir);
    const versions = (await store.images.versions(tenantId, 'todo')).length;
    const todoAgain = { connection: 'todo-two', policy: 'todo', label: 'second todo app' };
    expect(await ensureDemoAppConnections(store, dir, { apps: [...listed, todoAgain], policiesDir, pushCheck: signedImagePushCheck() })).toBe(true);
    expect(readDemoTenantFile(dir).app_connections!['todo-two']).toBeDefined();
    expect(await store.images.versions(tenantId, 'todo')).toHaveLength(versions);
  });

  it("refuses a new app's policy that fails its own tests, and adds nothing", async () => {
    const before = readDemoTenantFile(dir);
    const policies = writeAddedLaterPolicy(join(dir, 'policies'), 'deny');
    await expect(ensureDemoAppConnections(store, dir, { apps: [...listed, addedLater], policiesDir: policies, pushCheck: signedImagePushCheck() })).rejects.toThrow(PolicyTestsFailedError);
    expect(readDemoTenantFile(dir)).toEqual(before);
    expect(await store.images.tagged(before.tenant_id, 'added-later')).toBeUndefined();
  });

  it('adds what an older file lacks, to a file without app connections at all', async () => {
    const { app_connections: _dropped, ...old } = readDemoTenantFile(dir);
    writeDemoTenantFile(dir, old);
    expect(await ensureDemoAppConnections(store, dir, { apps: listed, policiesDir, pushCheck: signedImagePushCheck() })).toBe(true);
    expect(Object.keys(readDemoTenantFile(dir).app_connections!).sort()).toEqual(listed.map((a) => a.connection).sort());
  });
});
