import type { Express } from 'express';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { openLocalAuthorizer } from '../../src/authorizer';
import { createRbacApp } from '../../src/apps/rbac';
import { AuthorizerUnavailableError, type Authorizer } from '../../src/authorizer';
import { loadDirectorySeed } from '../../src/directory';
import { silentLogger } from '../../src/observability';
import { startAppFixture, USERS, type AppFixture } from './app-fixture';

const METHODS = ['GET', 'PUT', 'POST', 'DELETE'] as const;

/** What the rbac policy lets each role do (viewer GET; editor +PUT, POST; admin all). */
const RBAC_EXPECTED: Record<keyof typeof USERS, readonly string[]> = {
  rick: ['GET', 'PUT', 'POST', 'DELETE'],
  morty: ['GET', 'PUT', 'POST'],
  summer: ['GET', 'PUT', 'POST'],
  beth: ['GET'],
  jerry: ['GET'],
};

describe('RBAC sample app with the real IdP and the local Cedar authorizer', () => {
  let fixture: AppFixture;
  let url: string;
  const tokens: Record<string, { access_token: string; id_token: string }> = {};
  const authorizers: Authorizer[] = [];

  function build(policy: string, authorizer?: Authorizer): Express {
    const { directory } = loadDirectorySeed(fixture.config.directorySeedFile);
    const chosen = authorizer ?? openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: policy, directory });
    authorizers.push(chosen);
    return createRbacApp({ authenticate: accessTokenMiddleware(fixture.config), authorizer: chosen, policyName: policy, logger: silentLogger() });
  }

  beforeAll(async () => {
    fixture = await startAppFixture();
    url = await fixture.serve(build('rbac'));
    for (const [name, user] of Object.entries(USERS)) tokens[name] = await fixture.idp.token(user.email);
  });
  afterAll(async () => {
    await Promise.all(authorizers.map((a) => a.close()));
    await fixture.close();
  });

  const call = (method: string, path: string, authorization?: string, base = url) =>
    fetch(`${base}${path}`, { method, headers: authorization ? { authorization } : {} });

  describe.each(Object.keys(USERS) as (keyof typeof USERS)[])('%s', (name) => {
    it.each(METHODS)('%s /resource/mega-seed follows the rbac policy', async (method) => {
      const res = await call(method, '/resource/mega-seed', `Bearer ${tokens[name]!.access_token}`);
      if (RBAC_EXPECTED[name].includes(method)) {
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(await res.text()).toBe(`Hello from ${method} /resource/mega-seed`);
      } else {
        expect(res.status).toBe(403);
        expect(await res.json()).toEqual({ code: 'forbidden', message: `Forbidden by policy rbac.${method}` });
      }
    });
  });

  it('refuses the ID token with 401 and a challenge that says to use the access_token', async () => {
    const res = await call('DELETE', '/resource/mega-seed', `Bearer ${tokens.rick!.id_token}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="outpost", error="invalid_token", error_description=".*access_token.*"$/);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
  });

  it('answers a request without credentials with a bare Bearer challenge', async () => {
    const res = await call('DELETE', '/resource/mega-seed');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="outpost"');
  });

  it('answers a malformed Authorization header with 400 invalid_request', async () => {
    const res = await call('DELETE', '/resource/mega-seed', 'Bearer');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses an invalid resource name with 400 after authenticating', async () => {
    const res = await call('GET', '/resource/%2e%2e%2fetc', `Bearer ${tokens.rick!.access_token}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'bad_request' });
  });

  it('answers unknown paths with a JSON 404', async () => {
    const res = await call('GET', '/nothing-here');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'not_found', message: 'no route for GET /nothing-here' });
  });

  it('sends security headers (helmet) and a request id', async () => {
    const res = await call('GET', '/healthz');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-powered-by')).toBeNull();
  });

  it('swaps in the relation-based policy by configuration alone', async () => {
    const rebac = await fixture.serve(build('rebac'));
    // mega-seed: owner rick, writer morty, readers summer and beth; jerry has no relation.
    expect((await call('DELETE', '/resource/mega-seed', `Bearer ${tokens.rick!.access_token}`, rebac)).status).toBe(200);
    expect((await call('PUT', '/resource/mega-seed', `Bearer ${tokens.morty!.access_token}`, rebac)).status).toBe(200);
    expect((await call('DELETE', '/resource/mega-seed', `Bearer ${tokens.morty!.access_token}`, rebac)).status).toBe(403);
    expect((await call('GET', '/resource/mega-seed', `Bearer ${tokens.beth!.access_token}`, rebac)).status).toBe(200);
    const jerry = await call('GET', '/resource/mega-seed', `Bearer ${tokens.jerry!.access_token}`, rebac);
    expect(jerry.status).toBe(403);
    expect(await jerry.json()).toEqual({ code: 'forbidden', message: 'Forbidden by policy rebac.GET' });
    // time-crystal is Morty's: the same user gets a different answer on another resource.
    expect((await call('DELETE', '/resource/time-crystal', `Bearer ${tokens.morty!.access_token}`, rebac)).status).toBe(200);
  });

  it('fails closed with 503 when the authorizer cannot answer', async () => {
    const broken: Authorizer = {
      kind: 'edge',
      authorize: () => Promise.reject(new AuthorizerUnavailableError('edge authorizer unreachable')),
      close: async () => undefined,
    };
    const throwing: Authorizer = { kind: 'local', authorize: () => Promise.reject(new Error('boom')), close: async () => undefined };
    // Not even an Error: still a 503, never the error handler's 500.
    const throwingString: Authorizer = { kind: 'local', authorize: () => Promise.reject('boom'), close: async () => undefined };
    for (const authorizer of [broken, throwing, throwingString]) {
      const app = await fixture.serve(build('rbac', authorizer));
      const res = await call('DELETE', '/resource/mega-seed', `Bearer ${tokens.rick!.access_token}`, app);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toEqual({ code: 'authorizer_unavailable', message: 'the authorizer is unavailable; try again shortly' });
    }
  });
});

describe('RBAC sample app when the IdP is down', () => {
  it('answers 503, never 401 and never an allow', async () => {
    const fixture = await startAppFixture();
    const token = (await fixture.idp.token(USERS.rick.email)).access_token;
    const { directory } = loadDirectorySeed(fixture.config.directorySeedFile);
    const authorizer = openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: 'rbac', directory });
    const app = createRbacApp({
      authenticate: accessTokenMiddleware(fixture.config),
      authorizer,
      policyName: 'rbac',
      logger: silentLogger(),
    });
    await fixture.idp.close();
    const url = await fixture.serve(app);
    try {
      const res = await fetch(`${url}/resource/mega-seed`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable' });
    } finally {
      await authorizer.close();
      await fixture.close().catch(() => undefined);
    }
  });
});
