// The control plane's hook for the platform (createControlPlaneApp's extensions): an extension's
// router is served after the control plane's own routes, and an app given none serves none of
// them. Decision records' admin listing is one, image-signing keys another, the console a third
// (which refuses a write's query string itself), /openapi.json a fourth, which names the routes of
// the areas beside it.
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { consoleExtension } from '../../src/console';
import { createControlPlaneApp, type ControlPlaneExtension } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { controlPlaneExtensions } from '../../src/control-plane-server';
import { silentLogger } from '../../src/observability';
import { controlPlaneOpenApiExtension, type DocumentedExtension } from '../../src/openapi';
import { adminHeaders, makeFixture, type Fixture } from './fixture';

const PROBE: DocumentedExtension = {
  router: express.Router().get('/probe', (_req, res) => void res.json({ probed: true })),
  routes: [{ method: 'get', path: '/probe', summary: 'A probe', responses: { 200: { description: 'probed', schema: z.strictObject({ probed: z.boolean() }) } } }],
};

describe("the control plane's extensions", () => {
  let fx: Fixture;
  beforeEach(async () => {
    fx = await makeFixture();
  });
  afterEach(() => fx.close());

  const paths = async (app: Parameters<typeof request>[0]) => Object.keys((await request(app).get('/openapi.json')).body.paths as object);

  it("serves an extension's router, and with /openapi.json plugged in beside it names its routes there", async () => {
    const bare: ControlPlaneExtension = { router: PROBE.router };
    expect((await request(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger(), extensions: [bare] })).get('/probe')).body).toEqual({ probed: true });
    const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger(), extensions: [controlPlaneOpenApiExtension([PROBE]), PROBE] });
    expect((await request(app).get('/probe')).body).toEqual({ probed: true });
    const served = await paths(app);
    expect(served).toContain('/probe');
    expect(served).toContain('/api/v2/admin/policies/{name}');
  });

  it('serves none without one: the console, decision records, signing keys and /openapi.json are not part of the control plane', async () => {
    const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger() });
    expect((await request(app).get('/probe')).status).toBe(404);
    expect((await request(app).get('/console/api/me')).status).toBe(404);
    expect((await request(app).get('/api/v2/admin/decisions').set(adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key))).status).toBe(404);
    expect((await request(app).get('/api/v2/admin/signing-keys').set(adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key))).status).toBe(404);
    expect((await request(app).get('/openapi.json')).status).toBe(404);
  });

  it("plugs decision records and signing keys in as the control plane's process does: the admin listings, behind the admin key", async () => {
    const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger(), extensions: controlPlaneExtensions(fx.store) });
    expect(await paths(app)).not.toContain('/console/api/me');
    const listed = await request(app).get('/api/v2/admin/decisions').set(adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key));
    expect([listed.status, listed.body]).toEqual([200, { decisions: [], next: null }]);
    expect((await request(app).get('/api/v2/admin/decisions')).status).toBe(401);
    const keys = await request(app).get('/api/v2/admin/signing-keys').set(adminHeaders(fx.demo.tenant_id, fx.demo.admin_api_key));
    expect([keys.status, keys.body]).toEqual([200, { keys: [] }]);
    expect((await request(app).get('/api/v2/admin/signing-keys')).status).toBe(401);
    expect(await paths(app)).toContain('/api/v2/admin/decisions');
  });

  it('plugs the console in: its routes are served and documented, and a write with a query string is refused before its token is read', async () => {
    const relay = { exec: () => Promise.reject(new Error('unused')), broadcast: () => Promise.reject(new Error('unused')), registrations: () => Promise.reject(new Error('unused')) };
    const auth = { issuer: 'http://idp.invalid', jwksUri: 'http://idp.invalid/.well-known/jwks.json' };
    const consoleArea = consoleExtension({ store: fx.store, relay, auth });
    const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger(), extensions: [controlPlaneOpenApiExtension([consoleArea]), consoleArea] });
    expect((await request(app).get('/console/api/me')).status).toBe(401);
    expect(await paths(app)).toContain('/console/api/me');
    const refused = await request(app).post('/console/api/tenants/t/discovery-key/rotate?force=1');
    expect([refused.status, refused.body.code]).toEqual([400, 'unknown_query_parameter']);
  });
});
