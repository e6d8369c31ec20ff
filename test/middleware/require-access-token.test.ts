import express from 'express';
import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { baseUrl, close, createErrorHandler, listen, notFound } from '../../src/http';
import { requireAccessToken, type RequireAccessTokenOptions } from '@outpost/express-authz';
import { silentLogger } from '../../src/observability';
import {
  createSigningKey,
  createTestIssuer,
  publicJwk,
  signHs256WithPublicKey,
  stripSignature,
  tamperPayload,
  unsignedToken,
  type TestIssuer,
} from '../helpers/tokens';

const REALM = 'test-api';
let nowMs = Date.UTC(2030, 0, 1);
const clock = () => nowMs;
const nowSeconds = () => Math.floor(nowMs / 1000);
let idp: TestIssuer;

function createApp(overrides: Partial<RequireAccessTokenOptions> = {}) {
  const app = express();
  app.use(express.urlencoded({ extended: false }));
  const auth = requireAccessToken({
    issuer: idp.issuer,
    audience: idp.audience,
    clientId: idp.clientId,
    jwksUri: idp.jwksUri,
    realm: REALM,
    clockTolerance: 5,
    now: clock,
    ...overrides,
  });
  app.all('/whoami', auth, (req, res) => {
    res.json(req.auth);
  });
  app.use(notFound('oauth'));
  app.use(createErrorHandler(silentLogger(), 'oauth'));
  return app;
}

const challenge = (error: string, description: string) =>
  `Bearer realm="${REALM}", error="${error}", error_description="${description.replace(/"/g, '\\"')}"`;

/** A GET sending one header line per value; fetch and supertest would merge or refuse them. */
function getWithHeaderLines(url: string, name: string, values: string[]) {
  return new Promise<{ status: number; challenge: string | undefined; body: string }>((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, challenge: res.headers['www-authenticate'], body }));
    });
    req.setHeader(name, values);
    req.on('error', reject).end();
  });
}

async function expectInvalidToken(app: express.Express, token: string, description: string) {
  const res = await request(app).get('/whoami').set('Authorization', `Bearer ${token}`);
  expect(res.status).toBe(401);
  expect(res.headers['www-authenticate']).toBe(challenge('invalid_token', description));
  expect(res.body).toEqual({ error: 'invalid_token', error_description: description });
}

beforeAll(async () => {
  idp = await createTestIssuer({ nowSeconds });
});
afterAll(() => idp.close());

describe('requireAccessToken: the request', () => {
  it('admits a valid access token and sets req.auth to its claims', async () => {
    const token = idp.sign({ sub: 'rick', scope: 'read' });
    const res = await request(createApp()).get('/whoami').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ sub: 'rick', iss: idp.issuer, aud: idp.audience, scope: 'read', exp: nowSeconds() + 3600 });
  });

  it('hands out frozen claims, shared safely between requests with the same token', async () => {
    const app = express();
    app.get('/frozen', requireAccessToken({ issuer: idp.issuer, audience: idp.audience, jwksUri: idp.jwksUri, now: clock }), (req, res) => {
      res.json({ frozen: Object.isFrozen(req.auth) });
    });
    const token = idp.sign();
    for (let i = 0; i < 2; i += 1) {
      expect((await request(app).get('/frozen').set('Authorization', `Bearer ${token}`)).body).toEqual({ frozen: true });
    }
  });

  it('fails closed on a CORS preflight that express-jwt would wave through unverified', async () => {
    const res = await request(createApp())
      .options('/whoami')
      .set('Access-Control-Request-Headers', 'authorization')
      .set('Authorization', `Bearer ${idp.sign()}`);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(challenge('invalid_token', 'the token could not be verified'));
    expect(res.body).toEqual({ error: 'invalid_token', error_description: 'the token could not be verified' });
  });

  it('answers 401 with a bare challenge when no credentials are sent', async () => {
    const res = await request(createApp()).get('/whoami');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer realm="${REALM}"`);
    expect(res.body).toEqual({
      error: 'unauthorized',
      error_description: 'an access token is required: send Authorization: Bearer <access_token>',
    });
  });

  it.each([
    ['Bearer', 'the Authorization header must be "Bearer" followed by exactly one token'],
    ['Bearer a b', 'the Authorization header must be "Bearer" followed by exactly one token'],
    ['Basic dTpw, Bearer abc', 'the Authorization header must hold exactly one credential'],
  ])('answers 400 invalid_request for the header %j', async (header, description) => {
    const res = await request(createApp()).get('/whoami').set('Authorization', header);
    expect(res.status).toBe(400);
    expect(res.headers['www-authenticate']).toBe(challenge('invalid_request', description));
    expect(res.body).toEqual({ error: 'invalid_request', error_description: description });
  });

  it('answers 400 for two Authorization headers', async () => {
    const token = idp.sign();
    const server = await listen(createApp(), 0, '127.0.0.1');
    try {
      const res = await getWithHeaderLines(`${baseUrl(server)}/whoami`, 'Authorization', [`Bearer ${token}`, `Bearer ${token}`]);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ error: 'invalid_request', error_description: 'send exactly one Authorization header' });
      expect(res.challenge).toBe(challenge('invalid_request', 'send exactly one Authorization header'));
    } finally {
      await close(server);
    }
  });

  it('answers 400 for a token sent in the header and the query, or the header and a form body', async () => {
    const token = idp.sign();
    const description = 'the access token was sent two ways; send it only in the Authorization header';
    const app = createApp();
    const viaQuery = await request(app).get(`/whoami?access_token=${token}`).set('Authorization', `Bearer ${token}`);
    const viaBody = await request(app).post('/whoami').type('form').send({ access_token: token }).set('Authorization', `Bearer ${token}`);
    for (const res of [viaQuery, viaBody]) {
      expect(res.status).toBe(400);
      expect(res.headers['www-authenticate']).toBe(challenge('invalid_request', description));
      expect(res.body).toEqual({ error: 'invalid_request', error_description: description });
    }
  });
});

describe('requireAccessToken: forged and misused tokens', () => {
  const claims = () => ({ iss: idp.issuer, aud: idp.audience, sub: 'rick', iat: nowSeconds(), exp: nowSeconds() + 600 });

  it('rejects alg none', async () => {
    await expectInvalidToken(createApp(), unsignedToken({ typ: 'at+jwt', kid: idp.kid }, claims()), 'the token must be signed with RS256');
  });

  it('rejects HS256 signed with the public key as the secret', async () => {
    const token = signHs256WithPublicKey({ typ: 'at+jwt', kid: idp.kid }, claims(), idp.key.publicKey);
    await expectInvalidToken(createApp(), token, 'the token must be signed with RS256');
  });

  it('rejects a tampered payload, a stripped signature and a foreign key reusing a known kid', async () => {
    const app = createApp();
    const good = idp.sign({ sub: 'morty' });
    const failure = 'the token signature or claims are invalid';
    await expectInvalidToken(app, tamperPayload(good, { ...claims(), sub: 'rick' }), failure);
    await expectInvalidToken(app, stripSignature(good), failure);
    await expectInvalidToken(app, idp.sign({}, {}, { key: createSigningKey(idp.kid) }), failure);
  });

  it('ignores embedded jwk, jku and x5u headers: the key comes only from the JWKS', async () => {
    const attacker = createSigningKey(idp.kid);
    const token = idp.sign({}, { jwk: publicJwk(attacker), jku: 'http://127.0.0.1:1/jwks.json', x5u: 'http://127.0.0.1:1/x5u' }, { key: attacker });
    await expectInvalidToken(createApp(), token, 'the token signature or claims are invalid');
    const honest = idp.sign({}, { jwk: publicJwk(attacker), jku: 'http://127.0.0.1:1/jwks.json' });
    expect((await request(createApp()).get('/whoami').set('Authorization', `Bearer ${honest}`)).status).toBe(200);
  });

  it('rejects expired and not-yet-valid tokens, honouring the clock tolerance', async () => {
    const app = createApp();
    await expectInvalidToken(app, idp.sign({ exp: nowSeconds() - 6 }), 'the token has expired');
    await expectInvalidToken(app, idp.sign({ nbf: nowSeconds() + 60 }), 'the token is not valid yet');
    const withinTolerance = idp.sign({ exp: nowSeconds() - 2 });
    expect((await request(app).get('/whoami').set('Authorization', `Bearer ${withinTolerance}`)).status).toBe(200);
  });

  it('rejects a token issued in the future beyond the clock tolerance (RFC 9068 §4), and an iat that is not a number', async () => {
    const app = createApp();
    await expectInvalidToken(app, idp.sign({ iat: nowSeconds() + 6 }), 'the token was issued in the future (iat)');
    await expectInvalidToken(app, idp.sign({ iat: nowSeconds() + 10 * 365 * 86400, exp: nowSeconds() + 11 * 365 * 86400 }), 'the token was issued in the future (iat)');
    await expectInvalidToken(app, idp.sign({ iat: String(nowSeconds()) }), 'the token issue time (iat) is not a number');
    const withinTolerance = idp.sign({ iat: nowSeconds() + 5 });
    expect((await request(app).get('/whoami').set('Authorization', `Bearer ${withinTolerance}`)).status).toBe(200);
  });

  it.each([
    ['wrong issuer', { iss: 'https://evil.example' }, 'the token was issued by another issuer'],
    ['wrong audience', { aud: 'urn:other-api' }, 'the token is not meant for this API (aud)'],
    ['missing exp', { exp: undefined }, 'the token has no expiry (exp)'],
    ['missing sub', { sub: undefined }, 'the token has no subject (sub)'],
  ])('rejects a %s', async (_name, override, description) => {
    await expectInvalidToken(createApp(), idp.sign(override), description);
  });

  it.each([
    ['typ JWT', {}, { typ: 'JWT' }],
    ['aud = client id', { aud: 'outpost-test-client' }, {}],
  ])('rejects an ID token (%s) with a message pointing at the access_token', async (_name, override, header) => {
    const description = 'ID tokens are not accepted here; use the access_token';
    await expectInvalidToken(createApp(), idp.sign({ nonce: 'n', ...override }, header), description);
  });

  it('accepts typ application/at+jwt and rejects a missing typ', async () => {
    const app = createApp();
    const prefixed = idp.sign({}, { typ: 'application/AT+JWT' });
    expect((await request(app).get('/whoami').set('Authorization', `Bearer ${prefixed}`)).status).toBe(200);
    await expectInvalidToken(app, idp.sign({}, { typ: undefined }), 'the token type (typ) must be at+jwt');
  });

  it('refuses a crit header, an e-mail-shaped sub and a padded signature, each with its reason', async () => {
    const app = createApp();
    await expectInvalidToken(app, idp.sign({}, { crit: ['b64'], b64: true }), 'the token names critical header extensions (crit) this API does not support');
    await expectInvalidToken(app, idp.sign({ sub: 'rick@the-citadel.com' }), 'the token subject (sub) is not a user id');
    await expectInvalidToken(app, `${idp.sign()}==`, 'the token is not a well-formed JWT');
  });

  it('rejects garbage that is not a JWT', async () => {
    await expectInvalidToken(createApp(), 'not-a-jwt', 'the token is not a well-formed JWT');
  });
});

describe('requireAccessToken: options', () => {
  it('throws at creation on bad options, naming every problem', () => {
    expect(() => requireAccessToken({ issuer: '', audience: 'a', jwksUri: 'ftp://x', clockTolerance: -1 })).toThrow(
      'requireAccessToken: issuer must be a non-empty string; jwksUri must be an http(s) URL; clockTolerance must be an integer from 0 to 300 seconds',
    );
    expect(() => requireAccessToken({ issuer: 'i', audience: 'a', clientId: 'a', jwksUri: 'http://127.0.0.1/x' })).toThrow(/clientId must differ/);
    expect(() => requireAccessToken({ issuer: 'i', audience: 'a', jwksUri: 'http://127.0.0.1/x', jwksMaxAgeMs: 10 })).toThrow(
      'requireAccessToken: jwksMaxAgeMs must be an integer from 1000 to 86400000',
    );
  });
});
