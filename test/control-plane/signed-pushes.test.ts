import { join } from 'node:path';
import request from 'supertest';
import { SIGNING_KEY_LIMITS, createPolicyImage, readPolicyFolder, signImageDigest, signingKeyId, verifyImageSignature } from '../../src/policy';
import { newSigningKey } from '../helpers/signing';
import { adminHeaders, makeFixture, policiesDir, type Fixture } from './fixture';
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
    const res = await push({ files: changedFiles, signature: await signImageDigest(changed.digest, stranger.privateJwk) });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { code: 'invalid_signature', message: 'the policy image signature does not verify with any trusted key' },
    });
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('refuses an image changed after signing, and a JWS over a different digest', async () => {
    const key = await registeredKey();
    // Signed, then a file changed: the image's digest is no longer the one signed.
    const signedOriginal = await signImageDigest(rbac.digest, key);
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
    const other = await push({ files: changedFiles, signature: await signImageDigest(elsewhere.digest, key) });
    expect(other.status).toBe(400);
    expect(other.body.code).toBe('invalid_signature');
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('accepts a correctly signed push, and edges download the image with its signature', async () => {
    const key = await registeredKey();
    const signature = await signImageDigest(changed.digest, key);
    const res = await push({ files: changedFiles, signature });
    expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: { name: 'rbac', digest: changed.digest, tag: 'latest' } });
    const conn = await fx.store.tenants.addConnection(fx.demo.tenant_id, 'rbac');
    const download = await request(fx.app).get('/api/v2/edge/policy-image').auth(conn.connectionId, conn.connectionSecret);
    expect(download.status).toBe(200);
    expect(download.body).toEqual({ ...changed, signature });
    await expect(verifyImageSignature(download.body.digest, download.body.signature, [(await keys()).body.keys[0].jwk])).resolves.toBeUndefined();
  });

  it("keeps an image's signature with it: an unsigned re-push leaves it, dropping the image drops it", async () => {
    const db = await openLocation(fx.location);
    await fx.store.images.push(fx.demo.tenant_id, changed, 'a.b.c');
    expect(await fx.store.images.tagged(fx.demo.tenant_id, 'rbac')).toEqual({ image: changed, signature: 'a.b.c' });
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
