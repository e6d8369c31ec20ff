import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEMO_MEMBERS,
  DemoTenantFileConflictError,
  describeControlPlaneLocation,
  describeForeignDemoTenant,
  openControlPlaneStore,
  ensureDemoAccounts,
  ensureDemoAppConnections,
  ensureDemoConnectionLabels,
  seedControlPlane,
  type ControlPlaneLocation,
  type ControlPlaneStore,
} from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { DEMO_TENANT_FILE, loadConfig, readDemoTenantFile, writeDemoTenantFile } from '../../src/config';
import { PolicyTestsFailedError } from '../../src/decision';
import { PolicyValidationError, readPolicyFolder } from '../../src/policy';
import { VIEWERS_WRITE_REFUSAL } from '../helpers/policy-tests';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';
import { URLS, policiesDir, seedDirectory } from './fixture';

/** The apps of apps.json (the two samples, plus any `npm run new-app` added). */
const APPS = loadConfig({}).apps.list;
/** What the console calls an app's embedded-edge connection (`RBAC app (embedded edge)`): the form is the contract, the apps come from apps.json. */
const labelOf = (app: { label: string }) => `${app.label} (embedded edge)`;
/** The folders of policies/: the seed pushes one image of each. */
const POLICY_FOLDERS = readdirSync(policiesDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

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
    expect(tenant!.connections).toHaveLength(1 + APPS.length); // the sidecar's and one per app of apps.json
    expect(tenant!.connections).toEqual(
      expect.arrayContaining([
        { connectionId: demo!.connection_id, policyName: 'rbac', label: 'sidecar' },
        ...APPS.map((app) => ({ connectionId: apps[app.connection]!.connection_id, policyName: app.policy, label: labelOf(app) })),
      ]),
    );
    expect(labelOf(APPS.find((app) => app.name === 'rbac')!)).toBe('RBAC app (embedded edge)');
    for (const app of APPS.map((a) => apps[a.connection]!)) expect((await store.verifyConnection(app.connection_id, app.connection_secret))?.tenantId).toBe(demo!.tenant_id);
    expect(await store.verifyTenantKey(demo!.tenant_id, 'discovery', demo!.discovery_api_key)).toBe(true);
    expect(await store.verifyTenantKey(demo!.tenant_id, 'admin', demo!.admin_api_key)).toBe(true);
    expect((await store.verifyConnection(demo!.connection_id, demo!.connection_secret))?.tenantId).toBe(demo!.tenant_id);
    expect(POLICY_FOLDERS).toEqual(expect.arrayContaining(['rbac', 'rebac', 'todo']));
    for (const name of POLICY_FOLDERS) {
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
    expect(await ensureDemoAppConnections(store, dir, { pushCheck: signedImagePushCheck() })).toBe(true);
    const upgraded = readDemoTenantFile(dir);
    expect(upgraded).toMatchObject(old);
    const rbac = upgraded.app_connections!.rbac;
    expect((await store.verifyConnection(rbac.connection_id, rbac.connection_secret))?.policyName).toBe('rbac');
    expect(await ensureDemoAppConnections(store, dir, { pushCheck: signedImagePushCheck() })).toBe(false);
    expect(readDemoTenantFile(dir)).toEqual(upgraded);
    expect((await store.tenants.list()).find((t) => t.id === upgraded.tenant_id)!.connections).toHaveLength(1 + 2 * APPS.length); // the seed's, and one more per app
    expect((await store.tenants.get(upgraded.tenant_id))!.connections.find((c) => c.connectionId === rbac.connection_id)?.label).toBe(labelOf(APPS.find((app) => app.name === 'rbac')!));
  });

  it('labels the demo connections of a data directory seeded before labels existed, keeping a label given since, once', async () => {
    const demo = (await seed())!;
    // What an older build left: no labels; then someone labelled the todo app's connection.
    const raw = await openLocation(at);
    await raw.run('UPDATE connections SET label = NULL');
    await raw.run('UPDATE connections SET label = ? WHERE connection_id = ?', ['todo, by hand', demo.app_connections!.todo.connection_id]);
    await raw.close();
    expect(await ensureDemoConnectionLabels(store, dir)).toBe(true);
    const labels = async () => Object.fromEntries((await store.tenants.get(demo.tenant_id))!.connections.map((c) => [c.connectionId, c.label]));
    expect(await labels()).toEqual({
      [demo.connection_id]: 'sidecar',
      ...Object.fromEntries(APPS.map((app) => [demo.app_connections![app.connection]!.connection_id, labelOf(app)])),
      [demo.app_connections!.todo.connection_id]: 'todo, by hand',
    });
    expect(await ensureDemoConnectionLabels(store, dir)).toBe(false);
  });

  it('labels nothing without a demo tenant file', async () => {
    expect(await ensureDemoConnectionLabels(store, dir)).toBe(false);
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
    expect(await ensureDemoAppConnections(store, dir, { pushCheck: signedImagePushCheck() })).toBe(false);
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
      await expect(seed(failing)).rejects.toThrow(VIEWERS_WRITE_REFUSAL);
      expect(await store.tenants.list()).toEqual([]);
      expect(() => readDemoTenantFile(dir)).toThrow();
    } finally {
      rmSync(failing, { recursive: true, force: true });
    }
  });

  describe('whose demo-tenant.json it is', () => {
    const other = engine.name === 'sqlite' ? 'postgres' : 'sqlite';
    const name = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;
    /** A file another control plane wrote in this folder: its own tenant, keys and database. */
    const foreignFile = (database?: { engine: 'sqlite' | 'postgres'; database: string }) => {
      writeDemoTenantFile(dir, {
        tenant_id: 'their-tenant', discovery_api_key: 'dk_theirs', admin_api_key: 'ak_theirs', connection_id: 'their-conn', connection_secret: 'cs_theirs',
        ...URLS, ...(database === undefined ? {} : { control_plane: database }),
      });
      return readFileSync(join(dir, DEMO_TENANT_FILE), 'utf8');
    };

    it('records the database the tenant lives in', async () => {
      const database = describeControlPlaneLocation(at);
      const demo = await seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS, database });
      expect(readDemoTenantFile(dir)).toEqual(demo);
      expect(demo!.control_plane).toEqual(database);
      expect(readDemoTenantFile(dir).control_plane).toEqual({ engine: engine.name, database: expect.any(String) });
      expect(JSON.stringify(readDemoTenantFile(dir))).not.toMatch(/:[^:@/]*@/); // a PostgreSQL URL without its password
    });

    it("never writes over another engine's file: the seed is refused and the database stays empty", async () => {
      const database = describeControlPlaneLocation(at);
      const theirs = { engine: other, database: other === 'sqlite' ? '/elsewhere/control-plane.db' : 'postgres://outpost:***@127.0.0.1:5432/outpost' } as const;
      const before = foreignFile(theirs);
      const seeding = seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS, database });
      await expect(seeding).rejects.toThrow(DemoTenantFileConflictError);
      await expect(seeding).rejects.toThrow(
        `${join(dir, DEMO_TENANT_FILE)} belongs to the ${name[other]} control plane (${theirs.database}), and this control plane runs on the ${name[engine.name]} control plane (${database.database}): seeding its demo tenant here would overwrite the only copy of the other tenant's keys. Give each engine its own folder: leave OUTPOST_DATA_DIR unset`,
      );
      expect(readFileSync(join(dir, DEMO_TENANT_FILE), 'utf8')).toBe(before);
      expect(await store.tenants.list()).toEqual([]);
      // Moved aside, the folder is this engine's again.
      rmSync(join(dir, DEMO_TENANT_FILE));
      expect(await seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS, database })).toBeDefined();
    });

    it("replaces a file of the same engine's other database (a throwaway that is gone), and an older file only when no SQLite database sits beside it for PostgreSQL", async () => {
      const database = describeControlPlaneLocation(at);
      foreignFile({ engine: engine.name, database: 'an earlier database' });
      const seeded = await seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS, database });
      expect(readDemoTenantFile(dir)).toEqual(seeded);
      expect(seeded!.tenant_id).not.toBe('their-tenant');

      // A file from before files named their database: one beside a SQLite database is that database's.
      const fresh = mkdtempSync(join(tmpdir(), 'outpost-cp-seed-'));
      try {
        const freshAt = await engine.location(fresh);
        const freshStore = await openControlPlaneStore(freshAt);
        try {
          writeFileSync(join(fresh, 'control-plane.db'), '', { flag: 'a' }); // on PostgreSQL: a SQLite stack's leftover
          const { control_plane: _unrecorded, ...legacy } = seeded!;
          writeDemoTenantFile(fresh, { ...legacy, tenant_id: 'legacy' });
          const seeding = seedControlPlane(freshStore, { policiesDir, directorySeed: seedDirectory, dataDir: fresh, urls: URLS, database: describeControlPlaneLocation(freshAt) });
          if (engine.name === 'sqlite') expect(await seeding).toBeDefined();
          else await expect(seeding).rejects.toThrow(`belongs to the SQLite control plane (${join(fresh, 'control-plane.db')})`);
        } finally {
          await freshStore.close();
        }
      } finally {
        rmSync(fresh, { recursive: true, force: true });
      }
    });

    it('says at start when the file names a tenant this database lacks: both databases and the way out', async () => {
      const database = describeControlPlaneLocation(at);
      await seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS, database });
      expect(await describeForeignDemoTenant(store, dir, database)).toBeUndefined();
      const theirs = { engine: other, database: 'their database' } as const;
      foreignFile(theirs);
      const said = await describeForeignDemoTenant(store, dir, database);
      expect(said).toContain(
        `${join(dir, DEMO_TENANT_FILE)} names tenant their-tenant of the ${name[other]} control plane (their database), which the ${name[engine.name]} control plane (${database.database}) does not have: every edge reading that file is refused (401), and so are the scripts. Start with the database that file belongs to, `,
      );
      expect(said).toContain(engine.name === 'sqlite' ? `or move ${dir} aside (mv ${dir} ${dir}.old) and start again` : 'or point DATABASE_URL at an empty database');
      rmSync(join(dir, DEMO_TENANT_FILE));
      expect(await describeForeignDemoTenant(store, dir, database)).toBeUndefined();
    });
  });

  it('rolls the database back when demo-tenant.json cannot be written', async () => {
    const notADir = join(dir, 'file');
    writeFileSync(notADir, 'x');
    await expect(seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: join(notADir, 'sub'), urls: URLS })).rejects.toThrow();
    expect(await store.tenants.list()).toEqual([]);
    expect(await seed()).toBeDefined();
  });
});
