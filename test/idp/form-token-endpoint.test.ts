// The token endpoint, form-encoded as RFC 6749 §3.2 says: what `curl -d grant_type=password
// -d client_id=outpost-demo-client -d username=… -d password=…` sends. These requests are
// node-oidc-provider's (its error descriptions); the JSON form keeps its own statuses
// (token-errors.test.ts). The provider identifies every client, so each grant names one.
import { readFileSync, statSync } from 'node:fs';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { idpFiles } from '../../src/idp';
import { CITADEL, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, PASSWORD, pkcePair, postForm, REDIRECT_URI, signInThroughPage, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';
/** DEMO_CLIENT_ID's default: the public client of the password grant (no secret). */
const DEMO_CLIENT = 'outpost-demo-client';
const MACHINE_CLIENT = 'outpost-machine';

/** RFC 6749 §2.3.1: client_secret_basic, both parts form-encoded before base64. */
function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

describe('form-encoded token endpoint', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp();
  });
  afterAll(() => f.close());

  it('answers the password grant of the demo client like the JSON form (no refresh token), not cached', async () => {
    expect(f.config.idp.clientId).toBe(DEMO_CLIENT);
    const res = await postForm(f.url, TOKEN, { grant_type: 'password', client_id: DEMO_CLIENT, username: CITADEL[0].email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    // RFC 6749 §5.1: the form grant says the scope it granted (the JSON endpoint's body is the seed's).
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'scope', 'token_type']);
    expect(body.token_type).toBe('bearer');
    expect(body.scope).toBe('openid profile email');
    expect(decodeJwt(body.access_token as string)).toMatchObject({ sub: CITADEL[0].id, client_id: DEMO_CLIENT, aud: f.config.idp.apiAudience, scope: 'openid profile email' });
  });

  it('narrows the password grant to the scope asked for, and refuses a scope a user cannot have (RFC 6749 §3.3, §5.2)', async () => {
    const ask = (scope: string, password = PASSWORD) =>
      postForm(f.url, TOKEN, { grant_type: 'password', client_id: DEMO_CLIENT, username: CITADEL[0].email, password, scope });
    const narrowed = await ask('openid email');
    expect(narrowed.status).toBe(200);
    const body = (await narrowed.json()) as { scope: string; access_token: string };
    expect(body.scope).toBe('openid email');
    expect(decodeJwt(body.access_token).scope).toBe('openid email');
    for (const [scope, refused] of [['openid api', 'api'], ['admin', 'admin']]) {
      // Refused before the password is checked: a wrong one gets the same answer.
      for (const password of [PASSWORD, 'wrong']) {
        const res = await ask(scope!, password);
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'invalid_scope', error_description: "a user's token may carry openid profile email only", scope: refused });
      }
    }
  });

  it('answers bad credentials with 400 invalid_grant (RFC 6749 §5.2), not cached', async () => {
    const res = await postForm(f.url, TOKEN, { grant_type: 'password', client_id: DEMO_CLIENT, username: CITADEL[1].email, password: 'wrong' });
    expect(res.status).toBe(400);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'the username or password is incorrect' });
  });

  it('still answers the JSON form with 401 for bad credentials', async () => {
    const res = await f.post(JSON.stringify({ username: CITADEL[1].email, password: 'wrong' }));
    expect(res.status).toBe(401);
  });

  const NO_CLIENT_AUTH = 'no client authentication mechanism provided';
  const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';
  it.each([
    [{ client_id: DEMO_CLIENT, username: 'a', password: 'b' }, 400, 'invalid_request', "missing required parameter 'grant_type'"],
    [{ grant_type: 'bogus', client_id: DEMO_CLIENT }, 400, 'unsupported_grant_type', 'unsupported grant_type requested'],
    // Without client_id the provider cannot tell which client asks: refused before any password work.
    [{ grant_type: 'password', username: CITADEL[0].email, password: PASSWORD }, 400, 'invalid_request', NO_CLIENT_AUTH],
    [{ grant_type: 'password', client_id: DEMO_CLIENT, password: 'b' }, 400, 'invalid_request', 'missing username'],
    [{ grant_type: 'password', client_id: DEMO_CLIENT, username: 'a' }, 400, 'invalid_request', 'missing password'],
    [{ grant_type: 'password', client_id: DEMO_CLIENT, username: '', password: 'b' }, 400, 'invalid_request', 'missing username'],
    [{ grant_type: 'password', client_id: 'nobody', username: 'a', password: 'b' }, 401, 'invalid_client', 'client authentication failed'],
    // Each client only has its own grants: the browser client no password grant, the demo client no client credentials.
    [{ grant_type: 'password', client_id: CLIENT_ID, username: CITADEL[0].email, password: PASSWORD }, 400, 'invalid_request', GRANT_NOT_ALLOWED],
    [{ grant_type: 'client_credentials', client_id: DEMO_CLIENT }, 400, 'invalid_request', GRANT_NOT_ALLOWED],
    [{ grant_type: 'client_credentials' }, 400, 'invalid_request', NO_CLIENT_AUTH],
    [{ grant_type: 'authorization_code', code: 'c', redirect_uri: 'r', code_verifier: 'v' }, 400, 'invalid_request', NO_CLIENT_AUTH],
    [{ grant_type: 'authorization_code', client_id: 'nobody', code: 'c', redirect_uri: 'r', code_verifier: 'v' }, 401, 'invalid_client', 'client authentication failed'],
    [{ grant_type: 'authorization_code', client_id: CLIENT_ID, code: 'c', redirect_uri: REDIRECT_URI, code_verifier: 'v'.repeat(43) }, 400, 'invalid_grant', 'grant request is invalid'],
    [{ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: 'nope' }, 400, 'invalid_grant', 'grant request is invalid'],
  ])('%j → %i %s', async (fields, status, error, description) => {
    const res = await postForm(f.url, TOKEN, fields as Record<string, string>);
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ error, error_description: description });
  });

  it.each([
    ['a 257-character username', { username: 'a'.repeat(257), password: 'b' }],
    ['a 1025-character password', { username: CITADEL[0].email, password: 'b'.repeat(1025) }],
  ])('answers the password grant with %s 400 invalid_request', async (_case, credentials) => {
    const res = await postForm(f.url, TOKEN, { grant_type: 'password', client_id: DEMO_CLIENT, ...credentials });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'username or password is too long' });
  });

  it.each([
    [`grant_type=password&client_id=${DEMO_CLIENT}&username=a&username=b&password=c`, "'username' parameter must not be provided twice"],
    [`grant_type=password&client_id=${DEMO_CLIENT}&client_id=${DEMO_CLIENT}&username=a&password=c`, "'client_id' parameter must not be provided twice"],
  ])('refuses a repeated parameter (RFC 6749 §3.2): %s', async (body, description) => {
    const res = await fetch(`${f.url}${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: description });
  });

  it('issues the machine client an RFC 9068 access token for the API with client credentials (Basic auth)', async () => {
    const { clientId, clientSecret } = f.idp.machineClient;
    expect(clientId).toBe(MACHINE_CLIENT);
    // The secret is the one kept, owner-only, in <dataDir>/idp/machine-client.json.
    const file = idpFiles(f.dataDir).machineClientFile;
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ client_id: MACHINE_CLIENT, client_secret: clientSecret });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const res = await fetch(`${f.url}${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, clientSecret) },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    // No user, so no ID token; nothing to refresh.
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: f.config.idp.accessTokenTtl });
    expect(decodeProtectedHeader(body.access_token as string)).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    const { payload } = await jwtVerify(body.access_token as string, createRemoteJWKSet(new URL(`${f.url}/.well-known/jwks.json`)), {
      issuer: f.config.idp.issuer,
      audience: f.config.idp.apiAudience,
      typ: 'at+jwt',
      algorithms: ['RS256'],
      currentDate: new Date(f.clock()),
    });
    expect(payload).toMatchObject({ client_id: MACHINE_CLIENT, sub: MACHINE_CLIENT, aud: f.config.idp.apiAudience });
  });

  it('gives the machine client the API scope only, and refuses any other scope with invalid_scope', async () => {
    const { clientId, clientSecret } = f.idp.machineClient;
    const ask = (scope: string) =>
      fetch(`${f.url}${TOKEN}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, clientSecret) },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
      });
    const api = await ask('api');
    expect(api.status).toBe(200);
    expect(((await api.json()) as { scope: string }).scope).toBe('api');
    // RFC 6749 §5.2: a scope the machine may not have is refused as invalid_scope, never dropped
    // from a token that is issued anyway: a user's OIDC scopes, and scopes nobody defines.
    // The provider's answer names the scopes it refused.
    for (const [scope, refusedScopes] of [['openid', 'openid'], ['openid email api', 'openid email'], ['admin', 'admin'], ['api admin', 'admin']]) {
      const refused = await ask(scope!);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({ error: 'invalid_scope', error_description: 'the machine client may ask for the api scope only', scope: refusedScopes });
    }
  });

  it.each([
    ['a wrong secret', { authorization: basic(MACHINE_CLIENT, 'x'.repeat(43)) }, 'grant_type=client_credentials'],
    ['no secret', {}, `grant_type=client_credentials&client_id=${MACHINE_CLIENT}`],
  ])('refuses the machine client with %s: 401 invalid_client', async (_case, headers: Record<string, string>, body) => {
    const res = await fetch(`${f.url}${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
    expect(JSON.stringify([...res.headers])).not.toContain(f.idp.machineClient.clientSecret);
  });

  it('names the granted scope in the code flow\'s token responses, the code\'s and each refresh\'s', async () => {
    const { verifier, challenge } = pkcePair();
    const { callback } = await signInThroughPage(f.url, authorizeUrl(f.url, challenge, { scope: 'openid email' }), CITADEL[2].email);
    const code = callback.searchParams.get('code') as string;
    const first = await postForm(f.url, TOKEN, { grant_type: 'authorization_code', client_id: CLIENT_ID, code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(first.status).toBe(200);
    const tokens = (await first.json()) as Record<string, string>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid email' });
    expect(decodeJwt(tokens.access_token!)).toMatchObject({ sub: CITADEL[2].id, client_id: CLIENT_ID, scope: 'openid email' });

    const refreshed = await postForm(f.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: tokens.refresh_token! });
    expect(refreshed.status).toBe(200);
    const again = (await refreshed.json()) as Record<string, string>;
    expect(again).toMatchObject({ token_type: 'Bearer', scope: 'openid email' });
    expect(again.refresh_token).not.toBe(tokens.refresh_token); // rotated on every use
  });

  it('answers a configured browser origin with CORS, including the preflight', async () => {
    const origin = f.config.idp.corsOrigins[0]!;
    const pre = await fetch(`${f.url}${TOKEN}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization');
  });

  it('lets a configured browser origin read userinfo and revoke answers (CORS)', async () => {
    const origin = f.config.idp.corsOrigins[0]!;
    const info = await fetch(`${f.url}/userinfo`, { headers: { origin } });
    expect(info.status).toBe(401);
    expect(info.headers.get('access-control-allow-origin')).toBe(origin);
    expect(info.headers.get('www-authenticate')).toBe('Bearer realm="userinfo"');
    const revoke = await fetch(`${f.url}/revoke`, {
      method: 'POST',
      headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=outpost-todo&token=unknown',
    });
    // RFC 7009 §2.2: an unknown token is answered 200, revealing nothing.
    expect(revoke.status).toBe(200);
    expect(revoke.headers.get('access-control-allow-origin')).toBe(origin);
  });
});

describe('form-encoded password grant throttling', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp({ LOGIN_MAX_FAILURES: '2', LOGIN_FAILURE_WINDOW: '60' });
  });
  afterAll(() => f.close());

  const form = (password: string) =>
    postForm(f.url, TOKEN, { grant_type: 'password', client_id: DEMO_CLIENT, username: CITADEL[3].email, password });

  it('shares the one sign-in throttle with the JSON form: 429 with Retry-After, not cached', async () => {
    expect((await f.post(JSON.stringify({ username: CITADEL[3].email, password: 'wrong' }))).status).toBe(401);
    expect((await form('wrong')).status).toBe(400);
    f.clock.advance(15);
    const blocked = await form(PASSWORD);
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get('retry-after')).toBe('45');
    expect(blocked.headers.get('cache-control')).toBe('no-store');
    expect(await blocked.json()).toEqual({ error: 'too_many_requests', error_description: 'too many failed sign-in attempts; try again in 45 seconds' });
    expect((await f.post(JSON.stringify({ username: CITADEL[3].email, password: PASSWORD }))).status).toBe(429);
    f.clock.advance(45);
    expect((await form(PASSWORD)).status).toBe(200);
  });
});
