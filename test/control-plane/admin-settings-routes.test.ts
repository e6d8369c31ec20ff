/**
 * The tenant's settings in the admin API (docs/reference/api.md, "Push on change"): the demo
 * tenant is seeded with push on change on, another tenant starts with it off; a change is
 * audited as the admin key's; a malformed body and another tenant's key are refused.
 */
import request from 'supertest';
import { adminHeaders, makeFixture, type Fixture } from './fixture';

const PATH = '/api/v2/admin/settings';

describe('GET/PUT /api/v2/admin/settings', () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(() => fx.close());
  const demo = () => adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key);
  const other = () => adminHeaders(fx.other.tenantId, fx.other.adminApiKey);

  it('says push on change is on for the seeded demo tenant and off for a new tenant', async () => {
    expect((await request(fx.app).get(PATH).set(demo())).body).toEqual({ push_on_change: true });
    expect((await request(fx.app).get(PATH).set(other())).body).toEqual({ push_on_change: false });
  });

  it("turns it on and off for the caller's tenant only, each change audited", async () => {
    const on = await request(fx.app).put(PATH).set(other()).send({ push_on_change: true });
    expect({ status: on.status, body: on.body }).toEqual({ status: 200, body: { push_on_change: true } });
    expect(await fx.store.tenants.pushOnChange(fx.other.tenantId)).toBe(true);
    const off = await request(fx.app).put(PATH).set(demo()).send({ push_on_change: false });
    expect(off.body).toEqual({ push_on_change: false });
    expect([await fx.store.tenants.pushOnChange(fx.demo.tenant_id), await fx.store.tenants.pushOnChange(fx.other.tenantId)]).toEqual([false, true]);
    const audit = (await fx.store.audit.list(fx.other.tenantId)).map((e) => [e.action, e.target, e.outcome]);
    expect(audit).toContainEqual(['settings.push_on_change', 'on', 'ok']);
  });

  it.each([
    ['no member', {}],
    ['a string', { push_on_change: 'yes' }],
    ['an unknown member', { push_on_change: true, push_everything: true }],
  ])('answers 400 for %s and changes nothing', async (_label, body) => {
    const res = await request(fx.app).put(PATH).set(other()).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'bad_request' });
    expect(await fx.store.tenants.pushOnChange(fx.other.tenantId)).toBe(false);
  });

  it("answers 401 for the Discovery API key or another tenant's admin key", async () => {
    for (const headers of [adminHeaders(fx.demo.tenant_id, fx.demo.discovery_api_key), adminHeaders(fx.demo.tenant_id, fx.other.adminApiKey)]) {
      const res = await request(fx.app).put(PATH).set(headers).send({ push_on_change: false });
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { code: 'unauthorized', message: 'missing or invalid tenant credentials' } });
    }
    expect(await fx.store.tenants.pushOnChange(fx.demo.tenant_id)).toBe(true);
  });
});
