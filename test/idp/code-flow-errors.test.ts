// The authorization code flow's error matrix: RFC 6749 §4.1.2.1 at /authorize (bad client or
// redirect URI shown on a page, everything else redirected with `error`), RFC 6749 §5.2 and
// RFC 7636 §4.6 at the token endpoint.
import { fakeClock, CITADEL, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, pkcePair, postForm, REDIRECT_URI, signInThroughPage, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';

describe('authorization code flow errors', () => {
  const clock = fakeClock();
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp({}, clock);
  });
  afterAll(() => f.close());

  async function codeFor(challenge: string): Promise<string> {
    const { callback } = await signInThroughPage(f.url, authorizeUrl(f.url, challenge), CITADEL[0].email);
    return callback.searchParams.get('code') as string;
  }

  function exchange(code: string, verifier: string, overrides: Record<string, string> = {}): Promise<Response> {
    return postForm(f.url, TOKEN, {
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
      ...overrides,
    });
  }

  async function expectInvalidGrant(res: Response, description: string): Promise<void> {
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'invalid_grant', error_description: description });
  }

  it.each([
    ['an unknown client', { client_id: 'nobody' }, 'not registered here'],
    ['an unregistered redirect_uri', { redirect_uri: 'http://evil.test/' }, 'return address that is not registered'],
    ['a redirect_uri differing by a trailing path', { redirect_uri: `${REDIRECT_URI}x` }, 'return address that is not registered'],
    ['a missing redirect_uri', { redirect_uri: undefined }, 'return address that is not registered'],
  ])('shows %s on a page and never redirects', async (_name, overrides, text) => {
    const res = await fetch(authorizeUrl(f.url, pkcePair().challenge, overrides), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain(text);
  });

  it.each([
    ['missing PKCE', { code_challenge: undefined }, 'invalid_request', 'code_challenge is required (PKCE)'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', 'code_challenge_method must be S256'],
    ['no PKCE method', { code_challenge_method: undefined }, 'invalid_request', 'code_challenge_method must be S256'],
    ['a token response type', { response_type: 'token' }, 'unsupported_response_type', 'only response_type=code is supported'],
    ['a scope without openid', { scope: 'api' }, 'invalid_scope', 'scope must include openid'],
    ['an unknown scope', { scope: 'openid admin' }, 'invalid_scope', 'unsupported scope admin'],
  ])('redirects %s back with error and state', async (_name, overrides, error, description) => {
    const res = await fetch(authorizeUrl(f.url, pkcePair().challenge, overrides), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error, error_description: description, state: 'st-1', iss: f.url });
  });

  it('refuses a wrong code_verifier', async () => {
    const { challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await exchange(code, pkcePair().verifier), 'code_verifier does not match the code_challenge');
  });

  it('refuses a redirect_uri other than the authorization request\'s', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await exchange(code, verifier, { redirect_uri: 'http://localhost:3999/other' }), 'redirect_uri differs from the authorization request');
  });

  it('refuses a code issued to another client', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await exchange(code, verifier, { client_id: 'outpost-console' }), 'the code was issued to another client');
  });

  it('refuses a replayed code and revokes the refresh token the first exchange issued', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const { refresh_token } = (await first.json()) as { refresh_token: string };

    await expectInvalidGrant(await exchange(code, verifier), 'the code was already used; what it issued is revoked');
    const refresh = await postForm(f.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token });
    await expectInvalidGrant(refresh, 'the refresh token is unknown, expired or revoked');
  });

  it('refuses a code older than 60 seconds', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    clock.advance(61);
    await expectInvalidGrant(await exchange(code, verifier), 'the code is unknown or expired');
  });

  it('accepts a code just inside its 60 seconds', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    clock.advance(59);
    expect((await exchange(code, verifier)).status).toBe(200);
  });

  it('answers an unknown client at the token endpoint with 401 invalid_client', async () => {
    const res = await exchange('whatever', pkcePair().verifier, { client_id: 'nobody' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client_id' });
  });
});
