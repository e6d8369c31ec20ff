import { join } from 'node:path';
import request from 'supertest';
import { CompactSign, importJWK } from 'jose';
import {
  SIGNING_KEY_LIMITS,
  createPolicyImage,
  publicPart,
  readPolicyFolder,
  signPolicyImage,
  signingKeyId,
  verifyImageSignature,
  type PolicyImage,
  type PrivateSigningKey,
} from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { MAX_IMAGES_PER_TENANT } from '../../src/control-plane/policy-image-repository';
import { adminHeaders, makeFixture, policiesDir, type Fixture } from '../control-plane/fixture';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';

describe.each(SQL_ENGINES)('signing keys and signed pushes on $name', (engine) => {
  let fx: Fixture;
  let headers: Record<string, string>;
  const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
  const changedFiles = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// changed\n` };
  const changed = createPolicyImage('rbac', changedFiles);

  beforeEach(async () => {
    fx = await makeFixture({}, engine);
    headers = adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
  });
  afterEach(() => fx.close());

  const keys = () => request(fx.app).get('/api/v2/admin/signing-keys').set(headers);
  const addKey = (jwk: unknown, h = headers) => request(fx.app).post('/api/v2/admin/signing-keys').set(h).send({ jwk });
  const push = (body: object) => request(fx.app).post('/api/v2/admin/policies/rbac').set(headers).send(body);
  const versions = () => fx.store.images.versions(fx.demo.tenant_id, 'rbac');
  const latest = () => fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac');
  const sign = (image: PolicyImage, key: PrivateSigningKey, version = 1) => signPolicyImage({ name: image.name, digest: image.digest, version }, key);
  const pushSigned = async (image: PolicyImage, signature: string) => {
    const res = await push({ files: image.files, signature });
    return { status: res.status, body: res.body as unknown };
  };
  /** The rbac policy where every user may DELETE (tests dropped: they say otherwise). */
  const permissive = createPolicyImage('rbac', {
    'manifest.json': rbac.files['manifest.json']!,
    'schema.cedarschema': rbac.files['schema.cedarschema']!,
    'rbac.cedar': `${rbac.files['rbac.cedar']}\npermit (principal, action == Outpost::Action::"DELETE", resource is Outpost::Resource);\n`,
  });
  const staleBody = (version: number, highest: number) => ({
    code: 'stale_signature',
    message:
      `the signature is for version ${version} of policy rbac, and version ${highest} was pushed already: ` +
      'a signed push must carry a higher version, so an older image cannot return with its old signature. ' +
      'To roll back, sign the older image again as a new version (npm run policy -- push <folder> --sign <private key file> picks the next one)',
    highest_version: highest,
  });

  /** Registers a fresh key with the demo tenant; returns its private half. */
  async function registeredKey() {
    const key = await newSigningKey();
    expect((await addKey(key.publicJwk)).status).toBe(201);
    return key.privateJwk;
  }

  it('registers a public key under its thumbprint (idempotent), lists it and removes it', async () => {
    const { publicJwk } = await newSigningKey('ES256');
    const kid = await signingKeyId(publicJwk);
    const first = await addKey({ ...publicJwk, kid: 'my-label' });
    expect({ status: first.status, body: first.body }).toEqual({ status: 201, body: { kid } });
    expect((await addKey(publicJwk)).status).toBe(200);
    const listed = await keys();
    expect(listed.body).toEqual({ keys: [{ kid, jwk: publicJwk, created_at: expect.stringMatching(/^\d{4}-/) }] });
    expect((await request(fx.app).delete(`/api/v2/admin/signing-keys/${kid}`).set(headers)).status).toBe(204);
    const again = await request(fx.app).delete(`/api/v2/admin/signing-keys/${kid}`).set(headers);
    expect({ status: again.status, body: again.body }).toEqual({ status: 404, body: { code: 'unknown_key', message: 'no signing key with that id' } });
    expect((await keys()).body).toEqual({ keys: [] });
  });

  it('refuses a private key, another key type and a bad key id with 400, and never stores them', async () => {
    const { privateJwk } = await newSigningKey();
    for (const jwk of [privateJwk, { kty: 'RSA', n: 'x', e: 'AQAB' }, 'x']) {
      const res = await addKey(jwk);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('bad_request');
    }
    expect((await request(fx.app).delete('/api/v2/admin/signing-keys/not-a-kid').set(headers)).status).toBe(400);
    expect((await keys()).body).toEqual({ keys: [] });
  });

  it('refuses a weak Ed25519 key (a small-order point, such as 32 zero bytes, or no point of the curve) with 400', async () => {
    const encoded = (bytes: number[]) => Buffer.from(Uint8Array.from({ length: 32 }, (_v, i) => bytes[i] ?? 0)).toString('base64url');
    for (const x of [encoded([]), encoded([1]), encoded([2])]) {
      const res = await addKey({ kty: 'OKP', crv: 'Ed25519', x });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/weak Ed25519 key/);
    }
    expect((await keys()).body).toEqual({ keys: [] });
  });

  it(`keeps at most ${SIGNING_KEY_LIMITS.maxKeys} keys per tenant (409 quota_exceeded); other tenants are separate`, async () => {
    for (let i = 0; i < SIGNING_KEY_LIMITS.maxKeys; i += 1) expect((await addKey((await newSigningKey()).publicJwk)).status).toBe(201);
    const over = await addKey((await newSigningKey()).publicJwk);
    expect({ status: over.status, body: over.body }).toEqual({ status: 409, body: { code: 'quota_exceeded', message: `this tenant already has ${SIGNING_KEY_LIMITS.maxKeys} signing keys` } });
    const other = adminHeaders(fx.other.tenantId, fx.other.adminApiKey);
    expect((await addKey((await newSigningKey()).publicJwk, other)).status).toBe(201);
    expect((await request(fx.app).get('/api/v2/admin/signing-keys').set(other)).body.keys).toHaveLength(1);
    // The other tenant's key does not bind the demo tenant's pushes to it, nor the reverse.
    expect((await request(fx.app).post('/api/v2/admin/policies/rbac').set(other).send({ files: changedFiles })).status).toBe(400);
  });

  it('without registered keys, pushes need no signature', async () => {
    expect((await push({ files: changedFiles })).status).toBe(201);
  });

  it('with a registered key, refuses an unsigned push: 400 signature_required, nothing stored', async () => {
    await registeredKey();
    const before = await versions();
    const res = await push({ files: changedFiles });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'signature_required',
      message: 'this tenant has registered signing keys: push the image signed (npm run policy -- push --sign <private key file>)',
    });
    expect(await versions()).toEqual(before);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('refuses a push signed by a key the tenant did not register: 400 invalid_signature', async () => {
    await registeredKey();
    const stranger = await newSigningKey();
    const res = await push({ files: changedFiles, signature: await sign(changed, stranger.privateJwk) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { code: 'invalid_signature', message: 'the policy image signature does not verify with any trusted key' },
    });
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('refuses an image changed after signing, and a JWS over a different digest', async () => {
    const key = await registeredKey();
    // Signed, then a file changed: the image's digest is no longer the one signed.
    const signedOriginal = await sign(rbac, key);
    const tampered = await push({ files: changedFiles, signature: signedOriginal });
    expect(tampered.status).toBe(400);
    expect(tampered.body).toEqual({
      code: 'invalid_signature',
      message: `the signature is over another digest (${rbac.digest}), not this image's ${changed.digest}`,
    });
    // A complete image whose declared digest was edited to the signed one: the content decides.
    const declared = await push({ name: 'rbac', digest: rbac.digest, files: changedFiles, signature: signedOriginal });
    expect(declared.status).toBe(400);
    expect(declared.body.code).toBe('invalid_policy');
    expect(declared.body.message).toMatch(/digest mismatch/);
    // A valid JWS by the registered key over some other image's digest.
    const elsewhere = createPolicyImage('rbac', { ...rbac.files, 'x.cedar': '// x\n' });
    const other = await push({ files: changedFiles, signature: await sign(elsewhere, key) });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('invalid_signature');
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('accepts a correctly signed push, and edges download the image with its signature', async () => {
    const key = await registeredKey();
    const signature = await sign(changed, key);
    const res = await push({ files: changedFiles, signature });
    expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: { name: 'rbac', digest: changed.digest, tag: 'latest' } });
    const conn = await fx.store.tenants.addConnection(fx.demo.tenant_id, 'rbac');
    const download = await request(fx.app).get('/api/v2/edge/policy-image').auth(conn.connectionId, conn.connectionSecret);
    expect(download.status).toBe(200);
    expect(download.body).toEqual({ ...changed, signature });
    await expect(verifyImageSignature(download.body, download.body.signature, [(await keys()).body.keys[0].jwk])).resolves.toEqual({
      name: 'rbac',
      digest: changed.digest,
      version: 1,
    });
  });

  it('refuses an older image pushed again with its old signature: 409 stale_signature, latest stays', async () => {
    const key = await registeredKey();
    const a = { image: permissive, signature: await sign(permissive, key, 1) };
    expect(await pushSigned(a.image, a.signature)).toEqual({ status: 201, body: { name: 'rbac', digest: permissive.digest, tag: 'latest' } });
    expect(await pushSigned(changed, await sign(changed, key, 2))).toEqual({ status: 201, body: { name: 'rbac', digest: changed.digest, tag: 'latest' } });
    const before = await versions();
    // The replay: A as it was signed. Its signature verifies; its version is behind.
    const replay = await push({ files: a.image.files, signature: a.signature });
    expect({ status: replay.status, body: replay.body }).toEqual({ status: 409, body: staleBody(1, 2) });
    // The same version again, even for other content, is refused too.
    expect(await pushSigned(rbac, await sign(rbac, key, 2))).toEqual({ status: 409, body: staleBody(2, 2) });
    expect(await latest()).toBe(changed.digest);
    expect(await versions()).toEqual(before);
    expect((await fx.store.images.tagged(fx.demo.tenant_id, 'rbac'))?.image).toEqual(changed);
  });

  it('takes a deliberate rollback: the older image signed again as a new version becomes latest', async () => {
    const key = await registeredKey();
    await pushSigned(permissive, await sign(permissive, key, 1));
    await pushSigned(changed, await sign(changed, key, 2));
    const again = await sign(permissive, key, 3);
    expect(await pushSigned(permissive, again)).toEqual({ status: 200, body: { name: 'rbac', digest: permissive.digest, tag: 'latest' } });
    expect(await fx.store.images.tagged(fx.demo.tenant_id, 'rbac')).toEqual({ image: permissive, signature: again });
    expect(await fx.store.images.signedVersion(fx.demo.tenant_id, 'rbac')).toBe(3);
    // Versions may skip (a chosen --version): only going up counts.
    expect((await pushSigned(changed, await sign(changed, key, 10))).status).toBe(200);
    expect((await pushSigned(permissive, await sign(permissive, key, 9))).status).toBe(409);
  });

  it('names the highest accepted version in GET …/policies/:name (Outpost-Signed-Version), per policy name', async () => {
    const key = await registeredKey();
    const get = (name: string) => request(fx.app).get(`/api/v2/admin/policies/${name}`).set(headers);
    expect((await get('rbac')).headers['outpost-signed-version']).toBeUndefined();
    await pushSigned(changed, await sign(changed, key, 4));
    const res = await get('rbac');
    expect({ status: res.status, version: res.headers['outpost-signed-version'] }).toEqual({ status: 200, version: '4' });
    // Another policy name counts from its own start.
    const todo = readPolicyFolder(join(policiesDir, 'todo'));
    const todoPush = await request(fx.app).post('/api/v2/admin/policies/todo').set(headers).send({ files: todo.files, signature: await sign(todo, key, 1) });
    expect(todoPush.status).toBe(200);
    expect((await get('todo')).headers['outpost-signed-version']).toBe('1');
  });

  it('remembers the highest version when latest moved on unsigned: a replay after the keys return is still refused', async () => {
    const key = await registeredKey();
    const old = await sign(permissive, key, 1);
    await pushSigned(permissive, old);
    await pushSigned(changed, await sign(changed, key, 2));
    // Keys removed, an unsigned push moves latest; the version-2 image is no longer tagged.
    const [{ kid }] = (await keys()).body.keys;
    expect((await request(fx.app).delete(`/api/v2/admin/signing-keys/${kid}`).set(headers)).status).toBe(204);
    expect((await push({ files: rbac.files })).status).toBe(200);
    expect((await addKey(publicPart(key))).status).toBe(201);
    expect(await pushSigned(permissive, old)).toEqual({ status: 409, body: staleBody(1, 2) });
    expect(await latest()).toBe(rbac.digest);
  });

  it('evicts nothing for a stale push, even with every image slot taken', async () => {
    const tenant = fx.demo.tenant_id;
    const fake = (n: number) => ({ name: 'rbac', digest: `sha256:${n.toString(16).padStart(64, '0')}`, files: {} }) as never;
    const stored = async () => {
      let n = 0;
      for (const { name } of await fx.store.images.latest(tenant)) n += (await fx.store.images.versions(tenant, name)).length;
      return n;
    };
    // Every slot taken by signed pushes; the oldest untagged image is the one a new push would evict.
    for (let n = 1; (await stored()) < MAX_IMAGES_PER_TENANT; n += 1) await fx.store.images.push(tenant, fake(n), 'a.b.c', n);
    const before = await fx.store.images.versions(tenant, 'rbac');
    const highest = (await fx.store.images.signedVersion(tenant, 'rbac'))!;
    expect(await fx.store.images.push(tenant, fake(1000), 'a.b.c', highest)).toEqual({ digest: (fake(1000) as { digest: string }).digest, created: false, highestVersion: highest });
    expect(await fx.store.images.versions(tenant, 'rbac')).toEqual(before);
  });

  it('refuses a signature of the old format (over the digest alone) from a tenant with keys: 400 invalid_signature', async () => {
    const key = await registeredKey();
    const legacy = await new CompactSign(new TextEncoder().encode(changed.digest))
      .setProtectedHeader({ alg: 'EdDSA', kid: await signingKeyId(key), typ: 'outpost-policy-image+jws' })
      .sign(await importJWK(key, 'EdDSA'));
    const res = await push({ files: changedFiles, signature: legacy });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: {
        code: 'invalid_signature',
        message:
          'the signature is in the old format (over the digest alone, without a version), which is no longer accepted: ' +
          'sign the image again (npm run policy -- push <folder> --sign <private key file>)',
      },
    });
    expect(await latest()).toBe(rbac.digest);
  });

  it("keeps an image's signature with it, and the version it signed: an unsigned re-push leaves it, dropping the image drops it", async () => {
    const db = await openLocation(fx.location);
    await fx.store.images.push(fx.demo.tenant_id, changed, 'a.b.c', 5);
    expect(await fx.store.images.tagged(fx.demo.tenant_id, 'rbac')).toEqual({ image: changed, signature: 'a.b.c' });
    expect(await db.get('SELECT signature, version FROM policy_signatures WHERE digest = ?', [changed.digest])).toEqual({ signature: 'a.b.c', version: 5 });
    expect(await fx.store.images.push(fx.demo.tenant_id, rbac, 'd.e.f', 5)).toEqual({ digest: rbac.digest, created: false, highestVersion: 5 });
    // Pushing the same content unsigned leaves the signature; moving the tag away and dropping the image drops it.
    await fx.store.images.push(fx.demo.tenant_id, changed);
    expect((await fx.store.images.tagged(fx.demo.tenant_id, 'rbac'))?.signature).toBe('a.b.c');
    await fx.store.images.push(fx.demo.tenant_id, rbac);
    expect(await fx.store.images.tagged(fx.demo.tenant_id, 'rbac')).toEqual({ image: rbac, signature: undefined });
    await db.run('DELETE FROM policy_images WHERE digest = ?', [changed.digest]);
    expect(await db.get('SELECT COUNT(*) AS n FROM policy_signatures')).toEqual({ n: 0 });
    await db.close();
  });
});
