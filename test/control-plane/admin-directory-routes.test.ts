import request from 'supertest';
import { MORTY, RICK, adminHeaders, makeFixture, type Fixture } from './fixture';
import { SQL_ENGINES } from '../helpers/sql-engines';

describe.each(SQL_ENGINES)('admin directory API on $name', (engine) => {
  let fx: Fixture;
  let headers: Record<string, string>;
  beforeEach(async () => {
    fx = await makeFixture({}, engine);
    headers = adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
  });
  afterEach(() => fx.close());

  const dir = '/api/v2/admin/directory';
  const snapshot = async () => (await request(fx.app).get(dir).set(headers)).body;
  const morty = async () => (await snapshot()).users.find((u: { id: string }) => u.id === MORTY);

  it('returns the snapshot at revision 1 after seeding', async () => {
    const res = await request(fx.app).get(dir).set(headers);
    expect(res.status).toBe(200);
    expect(res.body.revision).toBe(1);
    expect(res.body.users).toHaveLength(5);
  });

  it('grants and revokes a role (by id or e-mail), one revision each, logged for edges', async () => {
    const grant = await request(fx.app).put(`${dir}/users/morty@the-citadel.com/roles/admin`).set(headers);
    expect(grant.status).toBe(200);
    expect(grant.body).toEqual({ revision: 2 });
    expect((await morty()).roles).toEqual(['editor', 'admin']);
    const revoke = await request(fx.app).delete(`${dir}/users/${MORTY}/roles/admin`).set(headers);
    expect(revoke.body).toEqual({ revision: 3 });
    expect((await morty()).roles).toEqual(['editor']);
    const log = await fx.store.directory.changesSince(fx.demo.tenant_id, 1);
    expect(log).toEqual({
      kind: 'changes',
      revision: 3,
      changes: [
        { rev: 2, op: 'role.grant', user_id: MORTY, role: 'admin' },
        { rev: 3, op: 'role.revoke', user_id: MORTY, role: 'admin' },
      ],
    });
  });

  it('puts and deletes users, and adds and removes relations', async () => {
    const put = await request(fx.app).put(`${dir}/users/u-new`).set(headers).send({ email: 'new@x.test', name: 'New', roles: ['viewer'] });
    expect(put.body).toEqual({ revision: 2 });
    const add = await request(fx.app).put(`${dir}/resources/doc-1/relations/owner/new@x.test`).set(headers);
    expect(add.body).toEqual({ revision: 3 });
    expect((await snapshot()).resources.find((r: { id: string }) => r.id === 'doc-1')).toEqual({
      id: 'doc-1',
      relations: { owner: ['u-new'], writer: [], reader: [] },
    });
    const remove = await request(fx.app).delete(`${dir}/resources/doc-1/relations/owner/u-new`).set(headers);
    expect(remove.body).toEqual({ revision: 4 });
    const del = await request(fx.app).delete(`${dir}/users/u-new`).set(headers);
    expect(del.body).toEqual({ revision: 5 });
    expect((await snapshot()).users.some((u: { id: string }) => u.id === 'u-new')).toBe(false);
  });

  it.each([
    ['PUT', '/users/morty@the-citadel.com/roles/emperor', 400, 'unknown_role', 'unknown role emperor'],
    ['PUT', '/users/nobody@x.test/roles/admin', 404, 'unknown_user', 'unknown user nobody@x.test'],
    ['DELETE', '/users/nobody', 404, 'unknown_user', 'unknown user nobody'],
    ['PUT', '/resources/doc/relations/owner/nobody', 404, 'unknown_user', 'unknown user nobody'],
    ['PUT', '/resources/doc/relations/boss/morty@the-citadel.com', 400, 'bad_request', 'invalid relation (one of owner, writer, reader)'],
    ['PUT', '/resources/bad%20id/relations/owner/morty@the-citadel.com', 400, 'bad_request', 'invalid resource id'],
    ['PUT', '/users/morty@the-citadel.com/roles/Not-A-Role', 400, 'bad_request', 'invalid role'],
  ])('%s %s → %i %s, revision unchanged', async (method, path, status, code, message) => {
    const res = await request(fx.app)[method === 'PUT' ? 'put' : 'delete'](`${dir}${path}`).set(headers);
    expect(res.status).toBe(status);
    expect(res.body).toEqual({ code, message });
    expect((await fx.store.directory.snapshot(fx.demo.tenant_id))?.revision).toBe(1);
  });

  it('puts a user with identities, which then name that user in the role routes; an identity of another user, or over the limit, is refused', async () => {
    const put = (id: string, body: object) => request(fx.app).put(`${dir}/users/${id}`).set(headers).send(body);
    const ok = await put('u-dex', { email: 'dex@x.test', name: 'Dex', roles: ['viewer'], identities: ['CiRkZXgSBWxvY2Fs', 'dex|42'] });
    expect(ok.body).toEqual({ revision: 2 });
    expect((await snapshot()).users.find((u: { id: string }) => u.id === 'u-dex')).toEqual({
      id: 'u-dex',
      email: 'dex@x.test',
      name: 'Dex',
      roles: ['viewer'],
      identities: ['CiRkZXgSBWxvY2Fs', 'dex|42'],
    });
    const clash = await put('u-other', { email: 'other@x.test', name: 'Other', identities: ['dex|42'] });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ code: 'duplicate_identity', message: 'identity "dex|42" names both u-dex and u-other' });
    const rick = await put('u-other', { email: 'other@x.test', name: 'Other', identities: ['rick@the-citadel.com'] });
    expect(rick.body.code).toBe('duplicate_identity');
    const many = await put('u-other', { email: 'other@x.test', name: 'Other', identities: Array.from({ length: 17 }, (_, i) => `id-${i}`) });
    expect(many.status).toBe(400);
    expect(many.body.code).toBe('bad_request');
    expect((await fx.store.directory.snapshot(fx.demo.tenant_id))?.revision).toBe(2);
  });

  it('puts a user with properties a policy may read (a department), kept by later role changes; nested values are refused', async () => {
    const put = (body: object) => request(fx.app).put(`${dir}/users/u-dept`).set(headers).send(body);
    expect((await put({ email: 'dept@x.test', name: 'Dept', properties: { department: 'Legal', level: 3 } })).status).toBe(200);
    expect((await snapshot()).users.find((u: { id: string }) => u.id === 'u-dept').properties).toEqual({ department: 'Legal', level: 3 });
    await request(fx.app).put(`${dir}/users/u-dept/roles/viewer`).set(headers).expect(200);
    expect((await snapshot()).users.find((u: { id: string }) => u.id === 'u-dept')).toEqual({ id: 'u-dept', email: 'dept@x.test', name: 'Dept', roles: ['viewer'], properties: { department: 'Legal', level: 3 } });
    const nested = await put({ email: 'dept@x.test', name: 'Dept', properties: { department: { name: 'Legal' } } });
    expect([nested.status, nested.body.code]).toEqual([400, 'bad_request']);
  });

  it('validates user bodies: malformed JSON, bad fields, unknown role, duplicate e-mail, oversized', async () => {
    const put = (body: string | object) => request(fx.app).put(`${dir}/users/u1`).set(headers).set('content-type', 'application/json').send(body);
    expect((await put('{"email":')).body).toEqual({ code: 'bad_request', message: 'the request body is not valid JSON' });
    const bad = await put({ email: 'not-an-email', name: 'X' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('bad_request');
    expect((await put({ email: 'a@x.test', name: 'X', extra: 1 })).status).toBe(400);
    const role = await put({ email: 'a@x.test', name: 'X', roles: ['emperor'] });
    expect(role.status).toBe(400);
    expect(role.body).toEqual({ code: 'unknown_role', message: 'unknown role emperor' });
    const dup = await put({ email: 'rick@the-citadel.com', name: 'X' });
    expect(dup.status).toBe(400);
    expect(dup.body.code).toBe('duplicate_email');
    const big = await put({ email: 'a@x.test', name: 'x'.repeat(20_000) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('payload_too_large');
    const text = await request(fx.app).put(`${dir}/users/u1`).set(headers).set('content-type', 'text/plain').send('hi');
    expect(text.status).toBe(400);
    expect((await fx.store.directory.snapshot(fx.demo.tenant_id))?.revision).toBe(1);
  });

  it("keeps tenants apart: B's key cannot touch A, and B's writes stay in B", async () => {
    const cross = await request(fx.app).put(`${dir}/users/${MORTY}/roles/admin`).set(adminHeaders(fx.demo.tenant_id, fx.other.adminApiKey));
    expect(cross.status).toBe(401);
    expect(cross.body).toEqual({ code: 'unauthorized', message: 'missing or invalid tenant credentials' });
    const own = await request(fx.app).put(`${dir}/users/${MORTY}/roles/admin`).set(adminHeaders(fx.other.tenantId, fx.other.adminApiKey));
    expect(own.status).toBe(404);
    expect((await fx.store.directory.snapshot(fx.demo.tenant_id))?.revision).toBe(1);
  });

  it('loses no update under 40 concurrent writes', async () => {
    const writes = Array.from({ length: 40 }, (_, i) =>
      request(fx.app).put(`${dir}/resources/r${i}/relations/reader/${RICK}`).set(headers),
    );
    const results = await Promise.all(writes);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.map((r) => r.body.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
    const data = await snapshot();
    expect(data.revision).toBe(41);
    expect(data.resources.filter((r: { id: string }) => /^r\d+$/.test(r.id))).toHaveLength(40);
  });
});
