// The control plane's push check (src/control-plane/image-push-check.ts), the hook signed images
// plug into: each path that stores a policy image asks it before Cedar sees the image and stores
// nothing it refuses, and none of them can be built without one (fail closed: a control plane
// whose composition left signed images out must not take unsigned pushes for a tenant with keys).
import { appendFileSync, cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { createControlPlaneApp, ensureDemoAppConnections, syncDemoPolicyFolders, type ControlPlaneStore, type ImagePushCheck } from '../../src/control-plane';
import { httpError } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { createPolicyImage, readPolicyFolder, signingKeyId } from '../../src/policy';
import { signedImagePushCheck } from '../../src/signing-keys';
import { createSigningKeyRepository } from '../../src/signing-keys/signing-key-repository';
import { newSigningKey } from '../helpers/signing';
import { adminHeaders, makeFixture, policiesDir, type Fixture } from './fixture';

/** A push check that records what it is asked, refuses what `refuse` says, and signs off pushes with `version`. */
function recordingCheck(options: { refuse?: boolean; requiresSignature?: boolean; version?: number } = {}) {
  const asked: { tenantId: string; digest: string; signature: string | undefined }[] = [];
  const check: ImagePushCheck = {
    requiresSignature: () => Promise.resolve(options.requiresSignature ?? false),
    check({ tenantId, image, signature }) {
      asked.push({ tenantId, digest: image.digest, signature });
      if (options.refuse) return Promise.reject(httpError('signature_required', 'refused by the test check'));
      return Promise.resolve(options.version);
    },
  };
  return { check, asked };
}

/** `policies/` with the project's rbac, and `todo` as a policy named `notes` that the tenant has no image of. */
function writePolicies(dir: string): string {
  const policies = join(dir, 'policies');
  cpSync(join(policiesDir, 'rbac'), join(policies, 'rbac'), { recursive: true });
  cpSync(join(policiesDir, 'todo'), join(policies, 'notes'), { recursive: true });
  writeFileSync(join(policies, 'notes', 'manifest.json'), JSON.stringify({ name: 'notes' }));
  return policies;
}

const NOTES_APP = { connection: 'notes', policy: 'notes', label: 'notes app' };

describe("the control plane's push check", () => {
  let fx: Fixture;
  let store: ControlPlaneStore;
  let tenantId: string;
  beforeEach(async () => {
    fx = await makeFixture();
    store = fx.store;
    tenantId = fx.demo.tenant_id;
  });
  afterEach(() => fx.close());

  const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
  const versions = (name: string) => store.images.versions(tenantId, name);

  it('is required: the app, the folder sync at start and the apps added later throw without one', async () => {
    const missing = undefined as unknown as ImagePushCheck;
    expect(() => createControlPlaneApp({ store, logger: silentLogger(), pushCheck: missing })).toThrow(/createControlPlaneApp needs a pushCheck/);
    await expect(syncDemoPolicyFolders(store, { dataDir: fx.dir, policiesDir, apps: [], edgesPinKeys: false, pushCheck: missing })).rejects.toThrow(
      /syncDemoPolicyFolders needs a pushCheck/,
    );
    await expect(ensureDemoAppConnections(store, fx.dir, { apps: [], policiesDir, pushCheck: missing })).rejects.toThrow(/ensureDemoAppConnections needs a pushCheck/);
    // Half a check is none either.
    const half = { check: () => Promise.resolve(undefined) } as unknown as ImagePushCheck;
    expect(() => createControlPlaneApp({ store, logger: silentLogger(), pushCheck: half })).toThrow(/needs a pushCheck/);
  });

  it("is asked of every push over the admin API before Cedar sees it, and what it refuses is not stored", async () => {
    const { check, asked } = recordingCheck({ refuse: true });
    const app = createControlPlaneApp({ store, logger: silentLogger(), pushCheck: check });
    const push = (files: Record<string, string>) => request(app).post('/api/v2/admin/policies/rbac').set(adminHeaders(tenantId, fx.demo.admin_api_key)).send({ files });
    const before = await versions('rbac');
    const changed = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// changed\n` };
    const refused = await push(changed);
    expect([refused.status, refused.body]).toEqual([400, { code: 'signature_required', message: 'refused by the test check' }]);
    // Text Cedar would refuse gets the check's answer: the check came first.
    const broken = await push({ ...rbac.files, 'rbac.cedar': 'permit (' });
    expect(broken.body.code).toBe('signature_required');
    expect(asked).toEqual([
      { tenantId, digest: createPolicyImage('rbac', changed).digest, signature: undefined },
      { tenantId, digest: createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': 'permit (' }).digest, signature: undefined },
    ]);
    expect(await versions('rbac')).toEqual(before);
  });

  it('stores the version the check says a signature signs', async () => {
    const { check } = recordingCheck({ version: 7 });
    const app = createControlPlaneApp({ store, logger: silentLogger(), pushCheck: check });
    const changed = createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// v7\n` });
    const res = await request(app).post('/api/v2/admin/policies/rbac').set(adminHeaders(tenantId, fx.demo.admin_api_key)).send({ files: changed.files, signature: 'a.b.c' });
    expect(res.status).toBe(201);
    expect(await store.images.signedVersion(tenantId, 'rbac')).toBe(7);
  });

  it('is asked by the folder sync at start before it pushes, even when it said no signature is needed', async () => {
    const policies = writePolicies(fx.dir);
    appendFileSync(join(policies, 'rbac', 'rbac.cedar'), '\n// an edit\n');
    const { check, asked } = recordingCheck({ refuse: true });
    const results = await syncDemoPolicyFolders(store, { dataDir: fx.dir, policiesDir: policies, apps: [], edgesPinKeys: false, pushCheck: check });
    expect(results).toEqual([{ kind: 'refused', folder: 'policies/rbac', name: 'rbac', reason: 'refused by the test check' }]);
    expect(asked).toEqual([{ tenantId, digest: readPolicyFolder(join(policies, 'rbac')).digest, signature: undefined }]);
    expect(await versions('rbac')).toHaveLength(1);
  });

  it("is asked of an app's image added later: one it refuses is not pushed, and the app still gets its connection", async () => {
    const policies = writePolicies(fx.dir);
    const { check, asked } = recordingCheck({ refuse: true });
    expect(await ensureDemoAppConnections(store, fx.dir, { apps: [NOTES_APP], policiesDir: policies, pushCheck: check })).toBe(true);
    expect(asked).toEqual([{ tenantId, digest: readPolicyFolder(join(policies, 'notes')).digest, signature: undefined }]);
    expect(await store.images.tagged(tenantId, 'notes')).toBeUndefined();
    expect((await store.tenants.get(tenantId))!.connections.some((c) => c.policyName === 'notes')).toBe(true);
  });

  it("with signed images plugged in, a tenant with a key gets no unsigned image of an app added later, and the folder sync names the signed push", async () => {
    const policies = writePolicies(fx.dir);
    const { publicJwk } = await newSigningKey();
    await createSigningKeyRepository(store.sql).add(tenantId, await signingKeyId(publicJwk), publicJwk);
    const pushCheck = signedImagePushCheck();
    expect(await ensureDemoAppConnections(store, fx.dir, { apps: [NOTES_APP], policiesDir: policies, pushCheck })).toBe(true);
    expect(await store.images.tagged(tenantId, 'notes')).toBeUndefined();
    const results = await syncDemoPolicyFolders(store, { dataDir: fx.dir, policiesDir: policies, apps: [NOTES_APP], edgesPinKeys: false, pushCheck });
    expect(results!.find((r) => r.name === 'notes')).toMatchObject({ kind: 'needs_signature', why: 'changed', pinnedBy: "the tenant's signing keys" });
    expect(await store.images.tagged(tenantId, 'notes')).toBeUndefined();
  });

  it('is asked again inside the transaction that stores the image: a key registered between the two asks refuses the push, and nothing is stored', async () => {
    // Passes when asked through the store, refuses when asked through a transaction: what a key
    // registered after the first ask (and before the image is stored) looks like to the check.
    const within: string[] = [];
    const check: ImagePushCheck = {
      requiresSignature: () => Promise.resolve(false),
      check(_push, repositories) {
        within.push(repositories === store ? 'store' : 'transaction');
        return repositories === store ? Promise.resolve(undefined) : Promise.reject(httpError('signature_required', 'a key arrived'));
      },
    };
    const app = createControlPlaneApp({ store, logger: silentLogger(), pushCheck: check });
    const before = await versions('rbac');
    const changed = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// raced\n` };
    const res = await request(app).post('/api/v2/admin/policies/rbac').set(adminHeaders(tenantId, fx.demo.admin_api_key)).send({ files: changed });
    expect([res.status, res.body]).toEqual([400, { code: 'signature_required', message: 'a key arrived' }]);
    expect(await versions('rbac')).toEqual(before);
    expect(within).toEqual(['store', 'transaction']);

    const policies = writePolicies(fx.dir);
    appendFileSync(join(policies, 'rbac', 'rbac.cedar'), '\n// an edit\n');
    const results = await syncDemoPolicyFolders(store, { dataDir: fx.dir, policiesDir: policies, apps: [], edgesPinKeys: false, pushCheck: check });
    expect(results).toEqual([{ kind: 'refused', folder: 'policies/rbac', name: 'rbac', reason: 'a key arrived' }]);
    expect(await versions('rbac')).toEqual(before);
  });
});
