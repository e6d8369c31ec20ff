import express from 'express';
import request from 'supertest';
import { requireTenantKey } from '../../src/control-plane';
import { createErrorHandler } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { makeFixture, type Fixture } from './fixture';

const UNAUTHORIZED = { code: 'unauthorized', message: 'missing or invalid tenant credentials' };
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe.each(SQL_ENGINES)('requireTenantKey on $name', (engine) => {
  let fx: Fixture;
  let app: express.Express;
  beforeAll(async () => {
    fx = await makeFixture({}, engine);
    app = express();
    app.get('/d', requireTenantKey(fx.store, 'discovery'), (_req, res) => {
      res.json({ tenant: res.locals.tenantId });
    });
    app.use(createErrorHandler(silentLogger(), 'api'));
  });
  afterAll(() => fx.close());

  const call = (headers: Record<string, string>) => request(app).get('/d').set(headers);

  it.each(['basic', 'Basic', 'BASIC', 'bAsIc'])('accepts the raw key with scheme %s', async (scheme) => {
    const res = await call({ 'service-tenant-id': fx.demo.tenant_id, authorization: `${scheme} ${fx.demo.discovery_api_key}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant: fx.demo.tenant_id });
  });

  it('accepts RFC 7617 base64(tenant:key)', async () => {
    const res = await call({
      'service-tenant-id': fx.demo.tenant_id,
      authorization: `Basic ${b64(`${fx.demo.tenant_id}:${fx.demo.discovery_api_key}`)}`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tenant: fx.demo.tenant_id });
  });

  const failures: [string, () => Record<string, string>][] = [
    ['a wrong key', () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: 'basic dk_wrong' })],
    ['the admin key where the discovery key is needed', () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: `basic ${fx.demo.admin_api_key}` })],
    ["another tenant's key", () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: `basic ${fx.other.discoveryApiKey}` })],
    ["another tenant's id with this key", () => ({ 'service-tenant-id': fx.other.tenantId, authorization: `basic ${fx.demo.discovery_api_key}` })],
    ['no tenant header', () => ({ authorization: `basic ${fx.demo.discovery_api_key}` })],
    ['an empty tenant header', () => ({ 'service-tenant-id': '', authorization: `basic ${fx.demo.discovery_api_key}` })],
    ['no Authorization header', () => ({ 'service-tenant-id': fx.demo.tenant_id })],
    ['an empty Authorization header', () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: '' })],
    ['a scheme without credential', () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: 'basic' })],
    ['the Bearer scheme', () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: `Bearer ${fx.demo.discovery_api_key}` })],
    [
      'base64 naming another tenant than the header',
      () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: `Basic ${b64(`${fx.other.tenantId}:${fx.demo.discovery_api_key}`)}` }),
    ],
    [
      "base64 of the other tenant's pair under this tenant's header",
      () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: `Basic ${b64(`${fx.other.tenantId}:${fx.other.discoveryApiKey}`)}` }),
    ],
    ['base64 with an empty key', () => ({ 'service-tenant-id': fx.demo.tenant_id, authorization: `Basic ${b64(`${fx.demo.tenant_id}:`)}` })],
  ];

  it('reads the stored key once per call, whichever form the credential has and whether it is right', async () => {
    let reads = 0;
    const counted = new Proxy(fx.store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'verifyTenantKey' || typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          reads += 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const counting = express();
    counting.get('/d', requireTenantKey(counted, 'discovery'), (_req, res) => void res.json({}));
    counting.use(createErrorHandler(silentLogger(), 'api'));
    const tenant = fx.demo.tenant_id;
    const calls: [Record<string, string>, number][] = [
      [{ 'service-tenant-id': tenant, authorization: `basic ${fx.demo.discovery_api_key}` }, 200],
      [{ 'service-tenant-id': tenant, authorization: `Basic ${b64(`${tenant}:${fx.demo.discovery_api_key}`)}` }, 200],
      [{ 'service-tenant-id': tenant, authorization: `Basic ${b64(`${tenant}:dk_wrong`)}` }, 401],
    ];
    for (const [headers, status] of calls) {
      reads = 0;
      expect((await request(counting).get('/d').set(headers)).status).toBe(status);
      expect(reads).toBe(1);
    }
  });

  it.each(failures)('answers the same 401 for %s', async (_name, headers) => {
    const res = await call(headers());
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(res.headers['www-authenticate']).toBe('Basic realm="outpost"');
  });
});
