import { join } from 'node:path';
import request from 'supertest';
import { readPolicyFolder, verifyPolicyImage } from '../../src/policy';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';
import { MORTY, adminHeaders, edgeAuth, makeFixture, policiesDir, type Fixture } from './fixture';

describe.each(SQL_ENGINES)('edge API on $name', (engine) => {
  let fx: Fixture;
  let auth: string;
  const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
  beforeEach(async () => {
    fx = await makeFixture({ changeLogLimit: 3 }, engine);
    auth = edgeAuth(fx.demo.connection_id, fx.demo.connection_secret);
  });
  afterEach(() => fx.close());

  const get = (path: string, authorization = auth) => request(fx.app).get(`/api/v2/edge${path}`).set('authorization', authorization);
  const grant = (role: string) =>
    request(fx.app).put(`/api/v2/admin/directory/users/${MORTY}/roles/${role}`).set(adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key));

  it('serves the connection policy image with its digest as ETag, and 304 when unchanged', async () => {
    const res = await get('/policy-image');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe(`"${rbac.digest}"`);
    expect(verifyPolicyImage(res.body)).toEqual(rbac);
    const again = await get('/policy-image').set('if-none-match', `"${rbac.digest}"`);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(`"${rbac.digest}"`);
    const listed = await get('/policy-image').set('if-none-match', `"sha256:${'1'.repeat(64)}", W/"${rbac.digest}"`);
    expect(listed.status).toBe(304);
    const stale = await get('/policy-image').set('if-none-match', `"sha256:${'1'.repeat(64)}"`);
    expect(stale.status).toBe(200);
  });

  it('answers 404 no_image when the connection policy has no image', async () => {
    const conn = await fx.store.tenants.addConnection(fx.demo.tenant_id, 'missing');
    const res = await get('/policy-image', edgeAuth(conn.connectionId, conn.connectionSecret));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'no_image', message: 'no image for policy missing' });
  });

  it('serves the directory snapshot with its revision as ETag', async () => {
    const res = await get('/directory');
    expect(res.status).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    expect(res.body.revision).toBe(1);
    expect(res.body.users).toHaveLength(5);
    expect((await get('/directory').set('if-none-match', '"1"')).status).toBe(304);
  });

  it('serves changes since a revision, and 410 resync_required once the log is trimmed', async () => {
    expect((await get('/directory/changes?since=1')).body).toEqual({ revision: 1, changes: [] });
    for (const role of ['admin', 'evil_genius', 'viewer', 'admin']) expect((await grant(role)).status).toBe(200);
    // Limit 3: revisions 3..5 are kept, so `since` 2..5 can be answered.
    const res = await get('/directory/changes?since=3');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      revision: 5,
      changes: [
        { rev: 4, op: 'role.grant', user_id: MORTY, role: 'viewer' },
        { rev: 5, op: 'role.grant', user_id: MORTY, role: 'admin' },
      ],
    });
    const raw = await openLocation(fx.location);
    const kept = await raw.get('SELECT count(*) AS n FROM directory_changes WHERE tenant_id = ?', [fx.demo.tenant_id]);
    await raw.close();
    expect(kept).toEqual({ n: 3 });
    expect((await get('/directory/changes?since=2')).body.changes.map((c: { rev: number }) => c.rev)).toEqual([3, 4, 5]);
    for (const since of ['1', '0', '6']) {
      const gone = await get(`/directory/changes?since=${since}`);
      expect(gone.status).toBe(410);
      expect(gone.body.code).toBe('resync_required');
    }
  });

  it.each(['', '?since=', '?since=-1', '?since=1.5', '?since=abc', '?since=1&since=2', '?since=01'])(
    'answers 400 for changes%s',
    async (query) => {
      const res = await get(`/directory/changes${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad_request', message: 'query parameter since must be a non-negative integer revision' });
    },
  );

  it.each([
    ['no credentials', undefined],
    ['a wrong secret', () => edgeAuth(fx.demo.connection_id, 'cs_wrong')],
    ['an unknown connection', () => edgeAuth('nope', fx.demo.connection_secret)],
    ['the raw secret', () => `Basic ${fx.demo.connection_secret}`],
    ['a tenant key', () => `basic ${fx.demo.admin_api_key}`],
  ])('answers 401 for %s', async (_name, authorization) => {
    const req = request(fx.app).get('/api/v2/edge/directory');
    const res = await (authorization ? req.set('authorization', authorization()) : req);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ code: 'unauthorized', message: 'missing or invalid connection credentials' });
    expect(res.headers['www-authenticate']).toBe('Basic realm="outpost-edge"');
  });

  it("shows a connection only its own tenant's directory and image", async () => {
    await grant('admin');
    const otherAuth = edgeAuth(fx.other.connectionId, fx.other.connectionSecret);
    const dir = await get('/directory', otherAuth);
    expect(dir.body).toMatchObject({ revision: 1, users: [], resources: [] });
    expect((await get('/directory/changes?since=1', otherAuth)).body).toEqual({ revision: 1, changes: [] });
    const image = await get('/policy-image', otherAuth);
    expect(image.status).toBe(404);
    expect(image.body.code).toBe('no_image');
    expect((await get('/directory')).body.revision).toBe(2);
  });
});

describe.each(SQL_ENGINES)('control plane app on $name', (engine) => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await makeFixture({}, engine);
  });
  afterAll(() => fx.close());

  it('answers /healthz and a JSON 404 for unknown paths', async () => {
    expect((await request(fx.app).get('/healthz')).body).toEqual({ status: 'ok' });
    const res = await request(fx.app).get('/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ code: 'not_found', message: 'no route for GET /nothing' });
  });
});
