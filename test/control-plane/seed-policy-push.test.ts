/**
 * `npm start` on an existing data directory: the control plane compares each served policy
 * folder with the tenant's latest image and pushes an edited one, says so in the banner, and
 * never pushes unsigned where signing keys are pinned (src/control-plane/sync-demo-policy-folders.ts).
 * A real SQLite control plane and real folders in a temp directory.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describePolicyFolderSync, loadConfig, readDemoTenantFile, readPolicyFoldersReport, writeDemoTenantFile, type PolicyFolderSync } from '../../src/config';
import { openControlPlaneStore, seedControlPlane, syncDemoPolicyFolders, type ControlPlaneStore } from '../../src/control-plane';
import { readPolicyFolder, signingKeyId } from '../../src/policy';
import { banner } from '../../src/stack/banner';
import { signedImagePushCheck } from '../../src/signing-keys';
import { stackComponents } from '../../src/stack/components';
import { newSigningKey } from '../helpers/signing';
import { URLS, policiesDir as projectPolicies, seedDirectory } from './fixture';
import { createSigningKeyRepository } from '../../src/signing-keys/signing-key-repository';

/** One app, `notes`, on its own policy (the todo policy under another name); the sidecar serves `rbac`. */
const APPS = [{ connection: 'notes', policy: 'notes', label: 'notes app' }];

describe('npm start pushes a policy folder changed since the image the edges hold', () => {
  let dir: string;
  let policies: string;
  let store: ControlPlaneStore;
  let tenantId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-folder-push-'));
    policies = join(dir, 'policies');
    cpSync(join(projectPolicies, 'rbac'), join(policies, 'rbac'), { recursive: true });
    cpSync(join(projectPolicies, 'todo'), join(policies, 'notes'), { recursive: true });
    writeFileSync(join(policies, 'notes', 'manifest.json'), JSON.stringify({ name: 'notes' }));
    store = await openControlPlaneStore(join(dir, 'control-plane.db'));
    // The first start seeds: every folder is an image already.
    const demo = await seedControlPlane(store, { policiesDir: policies, directorySeed: seedDirectory, dataDir: dir, urls: URLS, apps: APPS });
    tenantId = demo!.tenant_id;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const sync = (edgesPinKeys = false) => syncDemoPolicyFolders(store, { dataDir: dir, policiesDir: policies, apps: APPS, edgesPinKeys, pushCheck: signedImagePushCheck() });
  const latest = async (name: string) => (await store.images.latest(tenantId)).find((i) => i.name === name);
  const versions = (name: string) => store.images.versions(tenantId, name);
  const edit = (line = '// an edit') => appendFileSync(join(policies, 'notes', 'todo.cedar'), `\n${line}\n`);
  const lines = (results: readonly PolicyFolderSync[] | undefined) => (results ?? []).flatMap((r) => describePolicyFolderSync(r) ?? []);

  it('right after the first start finds every folder unchanged, and says nothing', async () => {
    const results = await sync();
    expect(results!.map((r) => [r.folder, r.kind])).toEqual([
      ['policies/rbac', 'unchanged'],
      ['policies/notes', 'unchanged'],
    ]);
    expect(lines(results)).toEqual([]);
  });

  it('pushes an edited folder on the next start, tags it latest, audits it and the banner says so; unchanged, it is not pushed again', async () => {
    const before = (await latest('notes'))!.digest;
    edit();
    const folder = readPolicyFolder(join(policies, 'notes'));
    const results = await sync();
    expect(results).toContainEqual({ kind: 'pushed', folder: 'policies/notes', name: 'notes', digest: folder.digest, previous: before });
    expect((await latest('notes'))!.digest).toBe(folder.digest);
    expect(await versions('notes')).toHaveLength(2);
    expect(lines(results)).toEqual([expect.stringMatching(/^pushed policies\/notes: changed since the image the edges hold \(sha256:[0-9a-f]{12} → sha256:[0-9a-f]{12}\)$/)]);
    const audit = await store.audit.list(tenantId);
    expect(audit[0]).toMatchObject({ action: 'policy.push', target: `notes@${folder.digest}`, actorKind: 'cli', actor: 'policy_folder' });

    // The banner of that start reads what the control plane wrote.
    const config = loadConfig({ OUTPOST_DATA_DIR: dir });
    const text = banner(config, stackComponents(config));
    expect(text).toContain('Policy folders (policies/ is the source of truth):');
    expect(text).toMatch(/\n  pushed policies\/notes: changed since the image the edges hold/);

    // The start after: nothing changed, nothing pushed, no new image version, nothing in the banner.
    const again = await sync();
    expect(again!.find((r) => r.name === 'notes')).toEqual({ kind: 'unchanged', folder: 'policies/notes', name: 'notes' });
    expect(await versions('notes')).toHaveLength(2);
    expect(readPolicyFoldersReport(dir).flatMap((r) => describePolicyFolderSync(r) ?? [])).toEqual([]);
    expect(banner(config, stackComponents(config))).not.toContain('Policy folders');
  });

  it('pushes nothing of a folder that does not compile, names file:line, and still pushes the other folders', async () => {
    edit('permit (principal, action, resource) when { ;');
    appendFileSync(join(policies, 'rbac', 'rbac.cedar'), '\n// an edit to rbac\n');
    const before = (await latest('notes'))!.digest;
    const results = await sync();
    const notes = results!.find((r) => r.name === 'notes')!;
    expect(notes.kind).toBe('invalid');
    expect(lines([notes])[0]).toMatch(/^NOT pushed policies\/notes: the edges keep the image they hold; fix:\n {4}policies\/notes\/todo\.cedar:\d+/);
    expect((await latest('notes'))!.digest).toBe(before);
    expect(results!.find((r) => r.name === 'rbac')!.kind).toBe('pushed');
  });

  it('pushes nothing of a folder whose own tests fail, naming the failing case', async () => {
    // Viewers may create todos: the folder's own cases say they may not.
    edit('permit (principal, action, resource);');
    const results = await sync();
    const notes = results!.find((r) => r.name === 'notes')!;
    expect(notes.kind).toBe('invalid');
    expect(lines([notes])[0]).toMatch(/\n {4}policies\/notes\/tests\/[a-z-]+\.json/);
    expect(await versions('notes')).toHaveLength(1);
  });

  it('with signing keys registered for the tenant, pushes nothing unsigned and names the command to run', async () => {
    const { publicJwk } = await newSigningKey();
    await createSigningKeyRepository(store.sql).add(tenantId, await signingKeyId(publicJwk), publicJwk);
    edit();
    const results = await sync();
    expect(results!.find((r) => r.name === 'notes')).toMatchObject({ kind: 'needs_signature', why: 'changed', pinnedBy: "the tenant's signing keys" });
    expect(await versions('notes')).toHaveLength(1);
    // No key file in the data directory yet: the command says where it goes.
    expect(lines(results)).toEqual([
      "NOT pushed policies/notes: changed since the image the edges hold, and the tenant's signing keys pin signed images, so it is not pushed unsigned. Sign and push it: npm run policy -- push policies/notes --sign <private key file>",
    ]);
  });

  it('with keys pinned at the edges, pushes nothing unsigned, and says so of an unsigned image the edges would refuse (503), naming the key file keygen wrote', async () => {
    writeFileSync(join(dir, 'policy-signing.key.json'), '{}');
    edit();
    const results = await sync(true);
    expect(await versions('notes')).toHaveLength(1);
    // As typed from the project root (here the temp folder, which holds policies/ and is the data directory).
    const key = 'policy-signing.key.json';
    expect(lines(results)).toEqual([
      // rbac is the latest image, but unsigned: edges that pin keys refuse it.
      `policies/rbac: the image of policy rbac is unsigned and EDGE_POLICY_SIGNING_KEYS pins keys, so its edges refuse it (503). Sign and push it: npm run policy -- push policies/rbac --sign ${key}`,
      `NOT pushed policies/notes: changed since the image the edges hold, and EDGE_POLICY_SIGNING_KEYS pin signed images, so it is not pushed unsigned. Sign and push it: npm run policy -- push policies/notes --sign ${key}`,
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'policy-folders.json'), 'utf8')).policy_folders).toHaveLength(2);
  });

  it("compares nothing for a demo tenant file of another database (a tenant this store lacks), and leaves the banner no earlier start's lines", async () => {
    edit();
    await sync(); // this start's report: pushed policies/notes
    expect(readPolicyFoldersReport(dir).map((r) => r.kind)).toContain('pushed');
    const file = readDemoTenantFile(dir);
    writeDemoTenantFile(dir, { ...file, tenant_id: 'another-databases-tenant' });
    edit('// another edit');
    expect(await sync()).toBeUndefined();
    expect(await versions('notes')).toHaveLength(2);
    expect(readPolicyFoldersReport(dir)).toEqual([]);
  });
});
