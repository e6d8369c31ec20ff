import express, { type Express } from 'express';
import request from 'supertest';
import type { JsonWebKey } from 'node:crypto';
import { authErrorHandler, createAccessTokenVerifier, ID_TOKEN_MESSAGE, requireAccessToken, requirePermission, requireScope, type Authorizer } from '../src';
import { AUDIENCE, CLIENT_ID, ISSUER, startIssuer, type TestIssuer } from './issuer';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startIssuer();
});
afterAll(() => issuer.close());

const answering = (allowed: unknown): Authorizer => ({ kind: 'test', authorize: async (q) => ({ allowed: allowed as boolean, policyPath: q.policyPath }), close: async () => {} });

/** An app as an adopter writes it: no error handler of its own unless `forward`. */
function appWith(authorizer: Authorizer, forward = false): Express {
  const app = express();
  const options = { issuer: ISSUER, audience: AUDIENCE, jwksUri: issuer.jwksUri, clientId: CLIENT_ID, forwardErrors: forward };
  app.delete('/things/:id', requireAccessToken(options), requirePermission(authorizer, { policy: 'things', action: 'delete', resource: (req) => ({ type: 'Thing', id: String(req.params.id) }) }, { forwardErrors: forward }), (req, res) => {
    res.json({ deleted: req.params.id, by: req.auth?.sub });
  });
  app.get('/export', requireAccessToken(options), requireScope('api'), (_req, res) => res.json({ ok: true }));
  if (forward) app.use(authErrorHandler());
  return app;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('requireAccessToken and requirePermission, without an error handler of the app', () => {
  it('lets an allowed request through with the claims on req.auth', async () => {
    const res = await request(appWith(answering(true))).delete('/things/42').set(bearer(issuer.token()));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: '42', by: 'user-1' });
  });

  it('answers a deny with 403 JSON naming the policy path, and anything but a literal true is a deny', async () => {
    for (const allowed of [false, 'yes', 1, undefined]) {
      const res = await request(appWith(answering(allowed))).delete('/things/42').set(bearer(issuer.token()));
      expect([res.status, res.body]).toEqual([403, { code: 'forbidden', message: 'Forbidden by policy things.delete' }]);
    }
  });

  it('answers no token with 401 JSON and the bare RFC 6750 challenge, never an HTML page', async () => {
    const res = await request(appWith(answering(true))).delete('/things/42');
    expect(res.status).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="outpost"');
    expect(res.body).toEqual({ error: 'unauthorized', error_description: 'an access token is required: send Authorization: Bearer <access_token>' });
    expect(res.text).not.toMatch(/<html|at .*\.(js|ts):\d+|\/packages\//i);
  });

  it('refuses an ID token before any key lookup: 401 invalid_token, the JWKS never fetched', async () => {
    const before = issuer.fetches();
    const idToken = issuer.token({ aud: CLIENT_ID }, { typ: 'JWT' });
    const res = await request(appWith(answering(true))).delete('/things/42').set(bearer(idToken));
    expect([res.status, res.body]).toEqual([401, { error: 'invalid_token', error_description: ID_TOKEN_MESSAGE }]);
    expect(res.headers['www-authenticate']).toBe(`Bearer realm="outpost", error="invalid_token", error_description="${ID_TOKEN_MESSAGE}"`);
    expect(issuer.fetches()).toBe(before);
  });

  it('answers a malformed Authorization header with 400 invalid_request', async () => {
    const res = await request(appWith(answering(true))).delete('/things/42').set('authorization', 'Bearer a b');
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });

  it('fails closed with 503 when the authorizer throws', async () => {
    const broken: Authorizer = { kind: 'test', authorize: () => Promise.reject(new Error('boom at /secret/path.js:1')), close: async () => {} };
    const res = await request(appWith(broken)).delete('/things/42').set(bearer(issuer.token()));
    expect([res.status, res.body]).toEqual([503, { code: 'authorizer_unavailable', message: 'the authorizer is unavailable; try again shortly' }]);
    expect(res.headers['retry-after']).toBe('1');
  });

  it('checks a scope: granted → 200, missing → 403 insufficient_scope with the challenge naming it', async () => {
    const app = appWith(answering(true));
    expect((await request(app).get('/export').set(bearer(issuer.token()))).status).toBe(200);
    const res = await request(app).get('/export').set(bearer(issuer.token({ scope: 'openid' })));
    expect([res.status, res.body.error]).toEqual([403, 'insufficient_scope']);
    expect(res.headers['www-authenticate']).toContain('scope="api"');
  });
});

describe('with forwardErrors and authErrorHandler', () => {
  it('passes refusals to the app’s error middleware, which answers them the same way', async () => {
    const app = appWith(answering(false), true);
    expect((await request(app).delete('/things/1')).status).toBe(401);
    const denied = await request(app).delete('/things/1').set(bearer(issuer.token()));
    expect([denied.status, denied.body.code]).toEqual([403, 'forbidden']);
  });

  it('answers 503 temporarily_unavailable when the JWKS cannot be fetched (a fresh key set, the IdP down)', async () => {
    const down = await startIssuer();
    down.breakJwks();
    const app = express();
    app.get('/', requireAccessToken({ issuer: ISSUER, audience: AUDIENCE, jwksUri: down.jwksUri }), (_req, res) => res.end());
    const res = await request(app).get('/').set(bearer(down.token()));
    await down.close();
    expect([res.status, res.body.error]).toEqual([503, 'temporarily_unavailable']);
  });
});

describe('createAccessTokenVerifier', () => {
  it('takes a key set in place of a JWKS URL, and several audiences', async () => {
    const verifier = createAccessTokenVerifier({ issuer: ISSUER, audience: ['https://other.test', AUDIENCE], jwks: async () => (await fetch(issuer.jwksUri)).json() as Promise<{ keys: JsonWebKey[] }> });
    expect((await verifier.verify(issuer.token())).sub).toBe('user-1');
    await expect(verifier.verify(issuer.token({ aud: 'https://third.test' }))).rejects.toMatchObject({ status: 401, message: 'the token is not meant for this API (aud)' });
  });

  it('runs the checks of the middleware: an ID token refused before any key fetch, an expired token named as such', async () => {
    const fresh = await startIssuer();
    try {
      const verifier = createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: fresh.jwksUri, clientId: CLIENT_ID });
      await expect(verifier.verify(fresh.token({ aud: CLIENT_ID }, { typ: 'JWT' }))).rejects.toMatchObject({ status: 401, message: ID_TOKEN_MESSAGE });
      expect(fresh.fetches()).toBe(0);
      const now = Math.floor(Date.now() / 1000);
      await expect(verifier.verify(fresh.token({ iat: now - 600, exp: now - 60 }))).rejects.toMatchObject({ status: 401, message: 'the token has expired' });
      expect((await verifier.verify(fresh.token())).sub).toBe('user-1');
    } finally {
      await fresh.close();
    }
  });

  it('wants exactly one key source', () => {
    expect(() => createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE })).toThrow('give either jwksUri or jwks');
    expect(() => createAccessTokenVerifier({ issuer: ISSUER, audience: AUDIENCE, jwksUri: issuer.jwksUri, jwks: async () => ({ keys: [] }) })).toThrow('give either jwksUri or jwks');
  });
});
