import { appendFileSync, cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { createPolicyImage, preparsedCount, readPolicyFolder } from '../../src/policy';
import { MAX_IMAGES_PER_TENANT } from '../../src/control-plane/policy-image-repository';
import { openControlPlaneStore, seedControlPlane } from '../../src/control-plane';
import { adminHeaders, makeFixture, policiesDir, seedDirectory, URLS, type Fixture } from './fixture';
import { VIEWERS_WRITE_FAILURES, VIEWERS_WRITE_REFUSAL } from '../helpers/policy-tests';
import { SQL_ENGINES } from '../helpers/sql-engines';

describe.each(SQL_ENGINES)('admin policy API on $name', (engine) => {
  let fx: Fixture;
  let headers: Record<string, string>;
  const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
  const changedFiles = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// changed\n` };

  beforeEach(async () => {
    fx = await makeFixture({}, engine);
    headers = adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
  });
  afterEach(() => fx.close());

  const push = (name: string, body: unknown) => request(fx.app).post(`/api/v2/admin/policies/${name}`).set(headers).send(body as object);

  it('stores a new image (201), tags it latest, and is idempotent for the same content (200)', async () => {
    const expected = createPolicyImage('rbac', changedFiles).digest;
    const first = await push('rbac', { files: changedFiles });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ name: 'rbac', digest: expected, tag: 'latest' });
    const again = await push('rbac', { files: changedFiles });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ name: 'rbac', digest: expected, tag: 'latest' });

    const shown = await request(fx.app).get('/api/v2/admin/policies/rbac').set(headers);
    expect(shown.status).toBe(200);
    expect(shown.body.name).toBe('rbac');
    expect(shown.body.latest).toBe(expected);
    expect(shown.body.images.map((i: { digest: string }) => i.digest).sort()).toEqual([expected, rbac.digest].sort());
    expect(shown.body.images[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    // Any stored image by digest (what the dry run compares a candidate with), per tenant and name.
    expect(await fx.store.images.stored(fx.demo.tenant_id, 'rbac', rbac.digest)).toEqual(rbac);
    expect(await fx.store.images.stored(fx.demo.tenant_id, 'rbac', expected)).toEqual(createPolicyImage('rbac', changedFiles));
    expect(await fx.store.images.stored(fx.demo.tenant_id, 'todo', expected)).toBeUndefined();
    expect(await fx.store.images.stored('another-tenant', 'rbac', expected)).toBeUndefined();
  });

  it('accepts a complete image and moves latest back to an older digest (rollback, 200)', async () => {
    await push('rbac', { files: changedFiles });
    const res = await push('rbac', { name: rbac.name, digest: rbac.digest, files: rbac.files });
    expect(res.status).toBe(200);
    expect(res.body.digest).toBe(rbac.digest);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('refuses an image that fails Cedar validation: 400 invalid_policy with file:line', async () => {
    const files = { ...rbac.files, 'rbac.cedar': 'permit (\n  principal,\n  action == Outpost::Action::"FLY",\n  resource\n);\n' };
    const res = await push('rbac', { files });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_policy');
    expect(res.body.message).toMatch(/rbac\.cedar:3/);
    expect(res.body.problems.length).toBeGreaterThan(0);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('refuses an image whose own tests fail: 400 policy_tests_failed listing the failing cases, nothing stored', async () => {
    // Viewers may now PUT and POST: the shipped cases saying they may not catch it.
    const viewersWrite = rbac.files['rbac.cedar']!.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"');
    expect(viewersWrite).not.toBe(rbac.files['rbac.cedar']);
    const before = await fx.store.images.versions(fx.demo.tenant_id, 'rbac');
    const res = await push('rbac', { files: { ...rbac.files, 'rbac.cedar': viewersWrite } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      code: 'policy_tests_failed',
      message: VIEWERS_WRITE_REFUSAL,
      problems: VIEWERS_WRITE_FAILURES,
    });
    expect(await fx.store.images.versions(fx.demo.tenant_id, 'rbac')).toEqual(before);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
    // The same change with its tests updated is accepted.
    const allowViewersWrite = (text: string) =>
      text.replace(/("(?:a viewer|(?:Beth|Jerry) Smith \(viewer\)) may not (?:PUT|POST)"[\s\S]*?"decision": )"deny"/g, '$1"allow"');
    const tests = { 'tests/citadel-directory.json': allowViewersWrite(rbac.files['tests/citadel-directory.json']!), 'tests/rbac.json': allowViewersWrite(rbac.files['tests/rbac.json']!) };
    expect((await push('rbac', { files: { ...rbac.files, 'rbac.cedar': viewersWrite, ...tests } })).status).toBe(201);
  });

  it('refuses malformed test files with 400 invalid_policy naming the file', async () => {
    const res = await push('rbac', { files: { ...rbac.files, 'tests/broken.json': '[{"name": "x"}]' } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_policy');
    expect(res.body.message).toMatch(/^tests\/broken\.json: /);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it.each([
    ['a wrong digest', () => ({ name: 'rbac', digest: `sha256:${'0'.repeat(64)}`, files: rbac.files }), /digest mismatch/],
    ['an image named differently from the URL', () => ({ name: 'rebac', digest: rbac.digest, files: rbac.files }), /does not match/],
    ['no schema', () => ({ files: { 'manifest.json': rbac.files['manifest.json'], 'rbac.cedar': rbac.files['rbac.cedar'] } }), /schema/],
    ['a path escaping the folder', () => ({ files: { ...rbac.files, '../x.cedar': 'permit(principal, action, resource);' } }), /safe relative path/],
  ])('refuses %s with 400 invalid_policy', async (_name, body, message) => {
    const res = await push('rbac', body());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_policy');
    expect(res.body.message).toMatch(message);
  });

  it('answers 400 bad_request for malformed JSON, a wrong body shape, and a bad name', async () => {
    const malformed = await request(fx.app).post('/api/v2/admin/policies/rbac').set(headers).set('content-type', 'application/json').send('{"files":');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 'bad_request', message: 'the request body is not valid JSON' });
    const shape = await push('rbac', { files: { 'rbac.cedar': 42 } });
    expect(shape.status).toBe(400);
    expect(shape.body.code).toBe('bad_request');
    const noBody = await request(fx.app).post('/api/v2/admin/policies/rbac').set(headers);
    expect(noBody.status).toBe(400);
    expect(noBody.body.code).toBe('bad_request');
    const badName = await push('Bad%20Name', { files: rbac.files });
    expect(badName.status).toBe(400);
    expect(badName.body).toEqual({ code: 'bad_request', message: 'invalid policy name' });
  });

  it('holds no compiled image after seeding and after five pushes (the registry only stores)', async () => {
    const before = preparsedCount();
    // A policies folder no other test compiled, so a leaked compilation shows in the count.
    const dir = mkdtempSync(join(tmpdir(), 'outpost-seed-'));
    cpSync(join(policiesDir, 'rbac'), join(dir, 'policies', 'rbac'), { recursive: true });
    appendFileSync(join(dir, 'policies', 'rbac', 'rbac.cedar'), `// ${dir}\n`);
    const store = await openControlPlaneStore(await engine.location(dir));
    await seedControlPlane(store, { policiesDir: join(dir, 'policies'), directorySeed: seedDirectory, dataDir: dir, urls: URLS });
    await store.close();
    rmSync(dir, { recursive: true, force: true });
    expect(preparsedCount()).toBe(before);
    for (let i = 0; i < 5; i += 1) expect((await push('rbac', { files: { ...changedFiles, 'n.cedar': `// ${i}\n` } })).status).toBe(201);
    expect(preparsedCount()).toBe(before);
  });

  it('answers 413 for a body over the limit', async () => {
    const res = await push('rbac', { files: { ...rbac.files, 'big.cedar': 'x'.repeat(300_000) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ code: 'payload_too_large', message: 'the request body is too large' });
  });

  it('answers 413 for a file or an image over the size limits, naming the limit', async () => {
    const comment = (bytes: number) => `// ${'x'.repeat(bytes - 4)}\n`;
    const bigFile = await push('rbac', { files: { ...rbac.files, 'big.cedar': comment(70_000) } });
    expect(bigFile.status).toBe(413);
    expect(bigFile.body).toEqual({ code: 'payload_too_large', message: 'file big.cedar is 70000 bytes (limit 65536)' });
    const files = { ...rbac.files, 'a.cedar': comment(60_000), 'b.cedar': comment(60_000), 'c.cedar': comment(60_000) };
    const bigImage = await push('rbac', { files });
    expect(bigImage.status).toBe(413);
    expect(bigImage.body.code).toBe('payload_too_large');
    expect(bigImage.body.message).toMatch(/^policy image is \d+ bytes \(limit 131072\)$/);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });

  it('refuses a poisoned policy with 400 invalid_policy, and the next push by another tenant succeeds', async () => {
    const poison = `permit(principal, action, resource) when { ${'('.repeat(150)}true${')'.repeat(150)} };\n`;
    const res = await push('rbac', { files: { ...rbac.files, 'poison.cedar': poison } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_policy', problems: ['poison.cedar:1: nesting deeper than 32'] });
    const other = await request(fx.app).post('/api/v2/admin/policies/rbac').set(adminHeaders(fx.other.tenantId, fx.other.adminApiKey)).send({ files: changedFiles });
    expect(other.status).toBe(201);
  });

  it('lists at most 20 problems of an image with thousands', async () => {
    const bad = Array.from({ length: 300 }, (_, i) => `permit(principal, action == Outpost::Action::"FLY${i}", resource);\n`).join('');
    const res = await push('rbac', { files: { ...rbac.files, 'bad.cedar': bad } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_policy');
    expect(res.body.problems).toHaveLength(20);
    expect(res.body.message).toMatch(/\(300 problems, first 20 listed\)$/);
  });

  it(`keeps at most ${MAX_IMAGES_PER_TENANT} images per tenant: old untagged ones make room, all-tagged is 409 quota_exceeded`, async () => {
    const version = (i: number) => ({ files: { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// v${i}\n` } });
    for (let i = 0; i < MAX_IMAGES_PER_TENANT + 5; i += 1) expect((await push('rbac', version(i))).status).toBe(201);
    // The seed stored one image of every other folder under policies/.
    const others = readdirSync(policiesDir).filter((n) => n !== 'rbac').length;
    expect(await fx.store.images.versions(fx.demo.tenant_id, 'rbac')).toHaveLength(MAX_IMAGES_PER_TENANT - others);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(createPolicyImage('rbac', version(MAX_IMAGES_PER_TENANT + 4).files).digest);
    // One tagged image per name: new names evict old rbac versions until every image is tagged.
    for (let i = 0; i < MAX_IMAGES_PER_TENANT - others - 1; i += 1) {
      expect((await push(`p${i}`, { files: { ...rbac.files, 'manifest.json': '{}' } })).status).toBe(201);
    }
    expect(await fx.store.images.versions(fx.demo.tenant_id, 'rbac')).toHaveLength(1);
    const refused = await push('zz', { files: { ...rbac.files, 'manifest.json': '{}' } });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ code: 'quota_exceeded', message: `this tenant already stores ${MAX_IMAGES_PER_TENANT} tagged policy images` });
    // Another tenant is not affected.
    const other = await request(fx.app).post('/api/v2/admin/policies/rbac').set(adminHeaders(fx.other.tenantId, fx.other.adminApiKey)).send({ files: changedFiles });
    expect(other.status).toBe(201);
  });

  it('answers 401 to an unauthenticated push before reading its body, whatever the body', async () => {
    for (const body of ['{"files":', JSON.stringify({ files: { 'big.cedar': 'x'.repeat(1_200_000) } })]) {
      const res = await request(fx.app).post('/api/v2/admin/policies/rbac').set('content-type', 'application/json').send(body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'unauthorized', message: 'missing or invalid tenant credentials' });
    }
  });

  it('answers 404 for an unknown policy name', async () => {
    const res = await request(fx.app).get('/api/v2/admin/policies/nothing').set(headers);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'unknown_policy', message: 'no policy named nothing' });
  });

  it("answers 401 for a wrong key or another tenant's key, and never touches the other tenant", async () => {
    const wrong = await request(fx.app).post('/api/v2/admin/policies/rbac').set(adminHeaders(fx.demo.tenant_id, 'ak_nope')).send({ files: changedFiles });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ code: 'unauthorized', message: 'missing or invalid tenant credentials' });
    const cross = await request(fx.app).post('/api/v2/admin/policies/rbac').set(adminHeaders(fx.demo.tenant_id, fx.other.adminApiKey)).send({ files: changedFiles });
    expect(cross.status).toBe(401);
    const discovery = await request(fx.app).get('/api/v2/admin/policies/rbac').set(adminHeaders(fx.demo.tenant_id, fx.demo.discovery_api_key));
    expect(discovery.status).toBe(401);
    // Tenant B pushing under its own id only affects B.
    const own = await request(fx.app).post('/api/v2/admin/policies/rbac').set(adminHeaders(fx.other.tenantId, fx.other.adminApiKey)).send({ files: changedFiles });
    expect(own.status).toBe(201);
    expect(await fx.store.images.taggedDigest(fx.demo.tenant_id, 'rbac')).toBe(rbac.digest);
  });
});
