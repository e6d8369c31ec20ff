// A write takes its input from the body: a query string on one is refused, never ignored, so a
// caller who thinks `?force=1` or `?dry_run=1` changed the meaning of a delete learns otherwise.
import request from 'supertest';
import { MORTY, adminHeaders, makeFixture, type Fixture } from './fixture';

describe('control plane writes refuse query parameters', () => {
  let fx: Fixture;
  let headers: Record<string, string>;
  beforeEach(async () => {
    fx = await makeFixture();
    headers = adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
  });
  afterEach(() => fx.close());

  const users = '/api/v2/admin/directory/users';
  const names = async () => ((await request(fx.app).get('/api/v2/admin/directory').set(headers)).body.users as { id: string }[]).map((u) => u.id);

  it.each([
    ['?q=%ff', 'q'],
    ['?dry_run=1&force=yes&dry_run=2', 'dry_run, force'],
    ['?%3Cscript%3E=1', '…'],
  ])('DELETE …/users/<id>%s is a 400 naming %s, and deletes nothing', async (query, named) => {
    const res = await request(fx.app).delete(`${users}/${MORTY}${query}`).set(headers);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'unknown_query_parameter', message: `a DELETE takes no query parameters (got: ${named})` });
    expect(await names()).toContain(MORTY);
  });

  it('refuses before any credential is read, for every write method, and leaves reads and a bare "?" alone', async () => {
    for (const method of ['post', 'put', 'patch', 'delete'] as const) {
      const res = await request(fx.app)[method](`/api/v2/admin/settings?x=1`);
      expect([method, res.status, res.body.code]).toEqual([method, 400, 'unknown_query_parameter']);
    }
    expect((await request(fx.app).get('/api/v2/admin/directory?x=1').set(headers)).status).toBe(200);
    // The edge API too (credentials are checked after).
    expect((await request(fx.app).post('/api/v2/edge/anything?x=1')).body.code).toBe('unknown_query_parameter');
    const plain = await request(fx.app).delete(`${users}/${MORTY}?`).set(headers);
    expect(plain.status).toBe(200);
    expect(await names()).not.toContain(MORTY);
  });
});
