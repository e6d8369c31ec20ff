import express from 'express';
import jsonwebtoken from 'jsonwebtoken';
import request from 'supertest';
import { createErrorHandler, notFound } from '../../src/http';
import { requireAccessToken, type RequireAccessTokenOptions } from '@outpost/express-authz';
import { createVerifiedTokenCache, TOKEN_INDEX_CHARS } from '../../packages/express-authz/src/verified-token-cache';
import { silentLogger } from '../../src/observability';
import { createSigningKey, createTestIssuer, type TestIssuer } from '../helpers/tokens';

const REALM = 'test-api';
let nowMs = Date.UTC(2030, 0, 1);
const nowSeconds = () => Math.floor(nowMs / 1000);
// Short, because a miss inside the cooldown really waits for it (the injected clock stands still).
const COOLDOWN = 50;
const UNAVAILABLE = {
  error: 'temporarily_unavailable',
  error_description: 'the signing keys of the identity provider are unavailable; try again later',
};
let idp: TestIssuer;

function createApp(issuer: TestIssuer, overrides: Partial<RequireAccessTokenOptions> = {}) {
  const app = express();
  const auth = requireAccessToken({
    issuer: issuer.issuer,
    audience: issuer.audience,
    jwksUri: issuer.jwksUri,
    realm: REALM,
    jwksCooldownMs: COOLDOWN,
    now: () => nowMs,
    ...overrides,
  });
  app.get('/whoami', auth, (req, res) => {
    res.json({ sub: req.auth?.sub });
  });
  app.use(notFound('oauth'));
  app.use(createErrorHandler(silentLogger(), 'oauth'));
  return app;
}

const call = (app: express.Express, token: string) => request(app).get('/whoami').set('Authorization', `Bearer ${token}`);

beforeAll(async () => {
  idp = await createTestIssuer({ nowSeconds });
});
afterAll(() => idp.close());

describe('JWKS key lookup', () => {
  it('rejects an unknown kid and refetches the JWKS single-flight, at most once per cooldown', async () => {
    const app = createApp(idp);
    const before = idp.jwksRequests;
    const unknown = await Promise.all(Array.from({ length: 5 }, (_, i) => call(app, idp.sign({}, { kid: `random-${i}` }))));
    expect(idp.jwksRequests - before).toBe(1); // the cold fetch, shared by concurrent misses
    for (const res of unknown) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe(
        `Bearer realm="${REALM}", error="invalid_token", error_description="the token was signed with an unknown key"`,
      );
      expect(res.body).toEqual({ error: 'invalid_token', error_description: 'the token was signed with an unknown key' });
    }
    // Inside the cooldown a miss waits for the next fetch; a concurrent flood still shares it.
    const flood = await Promise.all(Array.from({ length: 5 }, (_, i) => call(app, idp.sign({}, { kid: `flood-${i}` }))));
    expect(flood.map((res) => res.status)).toEqual([401, 401, 401, 401, 401]);
    expect(idp.jwksRequests - before).toBe(2);
    expect((await call(app, idp.sign())).status).toBe(200);
    expect(idp.jwksRequests - before).toBe(2);
  });

  it('accepts a rotated-in key at once, even right after a junk token with an unknown kid', async () => {
    const rotating = await createTestIssuer({ nowSeconds });
    try {
      const app = createApp(rotating);
      expect((await call(app, rotating.sign())).status).toBe(200);
      expect((await call(app, rotating.sign({}, { kid: 'junk' }))).status).toBe(401);
      const next = createSigningKey();
      rotating.addKey(next);
      expect((await call(app, rotating.sign({}, {}, { key: next }))).status).toBe(200); // no clock advance
    } finally {
      await rotating.close();
    }
  });

  it('answers 503, never 401 or 200, when the JWKS answers 5xx, and recovers on the next fetch', async () => {
    const failing = await createTestIssuer({ nowSeconds, key: idp.key });
    try {
      failing.failWith(503);
      const app = createApp(failing);
      for (let i = 0; i < 2; i += 1) {
        const res = await call(app, failing.sign());
        expect(res.status).toBe(503);
        expect(res.body).toEqual(UNAVAILABLE);
        expect(res.headers['retry-after']).toBe('5');
        expect(res.headers['www-authenticate']).toBeUndefined();
      }
      expect(failing.jwksRequests).toBe(2);
      failing.failWith(undefined);
      expect((await call(app, failing.sign())).status).toBe(200);
      expect(failing.jwksRequests).toBe(3);
    } finally {
      await failing.close();
    }
  });

  it('answers 503 when the IdP is unreachable', async () => {
    const gone = await createTestIssuer({ nowSeconds, key: idp.key });
    const token = gone.sign();
    await gone.close();
    const app = createApp(gone);
    for (let i = 0; i < 2; i += 1) {
      const res = await call(app, token);
      expect(res.status).toBe(503);
      expect(res.body).toEqual(UNAVAILABLE);
    }
  });
});

describe('verified-token cache', () => {
  afterEach(() => jest.restoreAllMocks());

  it('skips signature verification for a token it has already verified', async () => {
    const verify = jest.spyOn(jsonwebtoken, 'verify');
    const app = createApp(idp);
    const token = idp.sign({ sub: 'rick' });
    for (let i = 0; i < 3; i += 1) expect((await call(app, token)).body).toEqual({ sub: 'rick' });
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('verifies every time when disabled (tokenCacheSize 0)', async () => {
    const verify = jest.spyOn(jsonwebtoken, 'verify');
    const app = createApp(idp, { tokenCacheSize: 0 });
    const token = idp.sign();
    for (let i = 0; i < 3; i += 1) expect((await call(app, token)).status).toBe(200);
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('serves a cached token while the IdP is down', async () => {
    const flaky = await createTestIssuer({ nowSeconds, key: idp.key });
    const app = createApp(flaky);
    const token = flaky.sign();
    expect((await call(app, token)).status).toBe(200);
    await flaky.close();
    expect((await call(app, token)).status).toBe(200);
  });

  it('rejects a cached token once it expires by the injected clock', async () => {
    const app = createApp(idp, { clockTolerance: 5 });
    const token = idp.sign({ exp: nowSeconds() + 60 });
    expect((await call(app, token)).status).toBe(200);
    nowMs += 64_000;
    expect((await call(app, token)).status).toBe(200); // within the tolerance
    nowMs += 1_000;
    const res = await call(app, token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'the token has expired' });
  });

  it('is bounded and evicts the least recently used entry', () => {
    const cache = createVerifiedTokenCache(2, 0);
    const claims = (sub: string) => ({ sub, iss: 'i', aud: 'a', exp: 100 });
    cache.set('a', claims('a'));
    cache.set('b', claims('b'));
    expect(cache.get('a', 50)?.sub).toBe('a'); // 'b' is now the oldest
    cache.set('c', claims('c'));
    expect(cache.size).toBe(2);
    expect(cache.get('b', 50)).toBeUndefined();
    expect(cache.get('c', 100)).toBeUndefined(); // expired entries are dropped on access
    expect(cache.size).toBe(1);
  });

  it('answers only for the whole token: another token with the same ending is a miss, never its claims', () => {
    const cache = createVerifiedTokenCache(10, 0);
    const ending = 's'.repeat(TOKEN_INDEX_CHARS);
    const rick = `header.rick.${ending}`;
    const forged = `header.morty.${ending}`;
    cache.set(rick, { sub: 'rick', iss: 'i', aud: 'a', exp: 100 });
    expect(cache.get(forged, 50)).toBeUndefined();
    expect(cache.get(rick.slice(1), 50)).toBeUndefined();
    expect(cache.get(`x${rick}`, 50)).toBeUndefined();
    expect(cache.get(rick, 50)?.sub).toBe('rick');
    // A verified token with the same ending takes the slot: the other is then a miss, not a wrong hit.
    cache.set(forged, { sub: 'morty', iss: 'i', aud: 'a', exp: 100 });
    expect(cache.get(rick, 50)).toBeUndefined();
    expect(cache.get(forged, 50)?.sub).toBe('morty');
    expect(cache.get('short', 50)).toBeUndefined();
    cache.set('short', { sub: 'beth', iss: 'i', aud: 'a', exp: 100 });
    expect(cache.get('short', 50)?.sub).toBe('beth');
  });
});
