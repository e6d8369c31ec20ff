import { createPublicKey, KeyObject } from 'node:crypto';
import type { Express } from 'express';
import request from 'supertest';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { openLocalAuthorizer } from '../../src/authorizer';
import { createRbacApp } from '../../src/apps/rbac';
import type { Authorizer } from '../../src/authorizer';
import { loadDirectorySeed } from '../../src/directory';
import type { Edge } from '../../src/sidecar';
import { silentLogger } from '../../src/observability';
import { makeEdge, removeDir, tempDir } from '../edge/edge-kit';
import { startFakeControlPlane, type FakeControlPlane } from '../edge/fake-control-plane';
import { DEMO_PASSWORD } from '../helpers/idp';
import { CITADEL, startIdpFixture, type IdpFixture } from '../idp/idp-fixture';
import { TOKEN_TABLE, type TokenTableContext } from './token-table';
import { jwtDecisionRequest } from './verifier-pair';

let idp: IdpFixture;
let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let app: Express;
let authorizer: Authorizer;
let ctx: TokenTableContext;

beforeAll(async () => {
  idp = await startIdpFixture({ LOGIN_MAX_FAILURES: '1000' }, { clock: Object.assign(() => Date.now(), { advance: () => undefined }) });
  const { config } = idp;
  const { directory } = loadDirectorySeed(config.directorySeedFile);
  authorizer = openLocalAuthorizer({ policiesDir: config.policiesDir, policyName: 'rbac', directory });
  app = createRbacApp({ authenticate: accessTokenMiddleware(config), authorizer, policyName: 'rbac', logger: silentLogger() });
  cp = await startFakeControlPlane();
  dir = tempDir();
  const jwt = { issuer: config.idp.issuer, jwksUri: `${idp.url}/.well-known/jwks.json`, audience: config.idp.apiAudience };
  ({ edge } = makeEdge(cp.url, dir, { jwt }));
  await edge.runCommand('discovery');
  await edge.runCommand('sync_edge_directory');

  const signing = await idp.idp.keys.signingKey();
  const privateKey = KeyObject.from(signing.privateKey);
  const res = await idp.post(JSON.stringify({ username: CITADEL[0].email, password: DEMO_PASSWORD }));
  const tokens = (await res.json()) as { access_token: string; id_token: string };
  ctx = {
    issuer: config.idp.issuer,
    audience: config.idp.apiAudience,
    clientId: config.idp.clientId,
    kid: signing.kid,
    privateKey,
    publicKey: createPublicKey(privateKey),
    sub: CITADEL[0].id,
    accessToken: tokens.access_token,
    idToken: tokens.id_token,
  };
});

afterAll(async () => {
  await edge.close();
  await cp.close();
  await authorizer.close();
  await idp.close();
  removeDir(dir);
});

/** The app's answer: authenticated (200 or 403 from the policy) or refused (400/401). */
async function appAccepts(token: string): Promise<boolean> {
  const res = await request(app).get('/resource/mega-seed').set('Authorization', `Bearer ${token}`);
  expect([200, 400, 401, 403]).toContain(res.status);
  return res.status === 200 || res.status === 403;
}

/**
 * The edge's answer for a JWT identity: a decision (200) or 400 — `invalid_identity`, or
 * `bad_request` when the identity is longer than the decision API's schema allows.
 */
async function edgeAccepts(token: string): Promise<boolean> {
  const res = await request(edge.app)
    .post('/api/v2/authz/is')
    .send(jwtDecisionRequest(token));
  if (res.status !== 200 && res.body.code !== 'bad_request') {
    expect(res.body).toEqual({ code: 'invalid_identity', message: 'the identity is not a valid access token' });
  }
  expect([200, 400]).toContain(res.status);
  return res.status === 200;
}

describe('one token table, the same answer from the apps and the edge', () => {
  it.each(TOKEN_TABLE.map((row) => [row.name, row] as const))('%s', async (_name, row) => {
    const token = row.token(ctx);
    const answers = { app: await appAccepts(token), edge: await edgeAccepts(token) };
    expect(answers).toEqual({ app: row.accept, edge: row.accept });
  });
});
