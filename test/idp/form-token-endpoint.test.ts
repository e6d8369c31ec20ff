// The token endpoint, form-encoded as RFC 6749 §3.2 says: what `curl -d grant_type=password
// -d username=… -d password=…` sends. The JSON form keeps its own statuses (token-errors.test.ts).
import { CITADEL, type IdpFixture } from './idp-fixture';
import { PASSWORD, postForm, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';

describe('form-encoded token endpoint', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp();
  });
  afterAll(() => f.close());

  it('answers the password grant like the JSON form (no refresh token), not cached', async () => {
    const res = await postForm(f.url, TOKEN, { grant_type: 'password', username: CITADEL[0].email, password: PASSWORD });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'token_type']);
    expect(body.token_type).toBe('bearer');
  });

  it('answers bad credentials with 400 invalid_grant (RFC 6749 §5.2)', async () => {
    const res = await postForm(f.url, TOKEN, { grant_type: 'password', username: CITADEL[1].email, password: 'wrong' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: 'the username or password is incorrect' });
  });

  it('still answers the JSON form with 401 for bad credentials', async () => {
    const res = await f.post(JSON.stringify({ username: CITADEL[1].email, password: 'wrong' }));
    expect(res.status).toBe(401);
  });

  it.each([
    [{ username: 'a', password: 'b' }, 400, 'invalid_request', 'missing grant_type'],
    [{ grant_type: 'client_credentials' }, 400, 'unsupported_grant_type', 'grant_type client_credentials is not supported'],
    [{ grant_type: 'password', password: 'b' }, 400, 'invalid_request', 'missing username'],
    [{ grant_type: 'password', username: 'a', password: 'b', client_id: 'nobody' }, 401, 'invalid_client', 'unknown client_id'],
    [{ grant_type: 'authorization_code', code: 'c', redirect_uri: 'r', code_verifier: 'v' }, 401, 'invalid_client', 'unknown client_id'],
    [{ grant_type: 'refresh_token', client_id: 'outpost-todo', refresh_token: 'nope' }, 400, 'invalid_grant', 'the refresh token is unknown, expired or revoked'],
  ])('%j → %i %s', async (fields, status, error, description) => {
    const res = await postForm(f.url, TOKEN, fields as Record<string, string>);
    expect(res.status).toBe(status);
    expect(await res.json()).toEqual({ error, error_description: description });
  });

  it('refuses a repeated parameter (RFC 6749 §3.2)', async () => {
    const res = await fetch(`${f.url}${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&username=a&username=b&password=c',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_request', error_description: 'username must be given once' });
  });

  it('answers a configured browser origin with CORS, including the preflight', async () => {
    const origin = f.config.idp.corsOrigins[0];
    const pre = await fetch(`${f.url}${TOKEN}`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization');
  });

  it('lets a configured browser origin read userinfo and revoke answers (CORS)', async () => {
    const origin = f.config.idp.corsOrigins[0];
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
