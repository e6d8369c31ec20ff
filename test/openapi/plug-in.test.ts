// OpenAPI is a platform area (src/openapi): the seed's components serve `/openapi.json` only when
// the process that runs them plugs it into their hook (src/idp-server, src/control-plane-server).
// Built without it, each answers the JSON 404 of an unknown route there, like any path it lacks.
import request from 'supertest';
import { createControlPlaneApp } from '../../src/control-plane';
import { controlPlaneExtensions } from '../../src/control-plane-server';
import { createIdpApp } from '../../src/idp';
import { idpRouters } from '../../src/idp-server';
import { silentLogger } from '../../src/observability';
import { signedImagePushCheck } from '../../src/signing-keys';
import { IDP_OPENAPI } from '../../src/idp-server';
import { controlPlaneOpenApi } from '../../src/openapi';
import { DECISION_STORE_ROUTES } from '../../src/decision-store/decision-store-extension';
import { SIGNING_KEY_ROUTES } from '../../src/signing-keys/signing-keys-extension';
import { makeFixture, type Fixture } from '../control-plane/fixture';
import { startIdpFixture, type IdpFixture } from '../idp/idp-fixture';

describe('the IdP without the platform plugged in', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startIdpFixture();
  });
  afterAll(() => f.close());

  it('answers 404 for /openapi.json, the JSON 404 of a path it lacks', async () => {
    const res = await fetch(`${f.url}/openapi.json`);
    expect([res.status, await res.json()]).toEqual([404, { error: 'not_found', error_description: 'no route for GET /openapi.json' }]);
  });

  it('serves the document once its process plugs it in (`idpRouters()`, mounted on `createIdpApp`)', async () => {
    const { idp, config } = f;
    const app = createIdpApp({ options: config.idp, users: idp.users, keys: idp.keys, hashing: idp.hashing, adapter: idp.adapter, machineClient: idp.machineClient, logger: silentLogger(), clock: f.clock, routers: idpRouters() });
    const plugged = await request(app).get('/openapi.json');
    expect([plugged.status, plugged.headers['content-type'], plugged.text]).toEqual([200, 'application/json; charset=utf-8', JSON.stringify(IDP_OPENAPI)]);
  });
});

describe('the control plane without the platform plugged in', () => {
  let fx: Fixture;
  beforeAll(async () => {
    fx = await makeFixture();
  });
  afterAll(() => fx.close());

  it('answers 404 for /openapi.json, the JSON 404 of a path it lacks', async () => {
    const res = await request(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger() })).get('/openapi.json');
    expect([res.status, res.body]).toEqual([404, { code: 'not_found', message: 'no route for GET /openapi.json' }]);
  });

  it('serves its own, the relay\'s and the plugged areas\' routes once its process plugs the document in', async () => {
    const res = await request(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: fx.store, logger: silentLogger(), extensions: controlPlaneExtensions(fx.store) })).get('/openapi.json');
    expect([res.status, res.text]).toEqual([200, JSON.stringify(controlPlaneOpenApi([...DECISION_STORE_ROUTES, ...SIGNING_KEY_ROUTES]))]);
  });
});
