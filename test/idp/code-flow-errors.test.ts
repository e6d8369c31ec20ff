// The authorization code flow's error matrix, as node-oidc-provider answers it: RFC 6749
// §4.1.2.1 at /authorize (a bad client or redirect URI shown on a page, never redirected;
// everything else redirected with `error`, `state` and `iss` (RFC 9207)), RFC 6749 §5.2 and
// RFC 7636 §4.6 at the token endpoint. The provider's error descriptions are asserted as it
// words them; the token endpoint deliberately says no more than 'grant request is invalid'.
import { CITADEL, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, openLoginPage, pkcePair, postForm, REDIRECT_URI, signInThroughPage, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';
/** The one answer of the token endpoint to every bad code, verifier, redirect_uri or refresh token. */
const INVALID_GRANT = { error: 'invalid_grant', error_description: 'grant request is invalid' };
/** The provider's description, as the error page escapes it. */
const REDIRECT_MISMATCH = 'redirect_uri did not match any of the client&#39;s registered redirect_uris';

describe('authorization code flow errors', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp();
  });
  afterAll(() => f.close());

  async function codeFor(challenge: string, overrides: Record<string, string | undefined> = {}): Promise<string> {
    const { callback } = await signInThroughPage(f.url, authorizeUrl(f.url, challenge, overrides), CITADEL[0].email);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
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

  async function expectInvalidGrant(res: Response): Promise<void> {
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: INVALID_GRANT });
  }

  /** Runs `fn` with the provider's (and its storage's) clock `seconds` ahead; the clock still moves. */
  async function later<T>(seconds: number, fn: () => Promise<T>): Promise<T> {
    const realNow = Date.now.bind(Date);
    const spy = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + seconds * 1000);
    try {
      return await fn();
    } finally {
      spy.mockRestore();
    }
  }

  it.each([
    ['an unknown client', { client_id: 'nobody' }, 'client is invalid'],
    ['an unregistered redirect_uri', { redirect_uri: 'http://evil.test/' }, REDIRECT_MISMATCH],
    ['a redirect_uri differing by a trailing path', { redirect_uri: `${REDIRECT_URI}x` }, REDIRECT_MISMATCH],
    ['another client’s redirect_uri', { redirect_uri: 'http://localhost:8585/console/callback' }, REDIRECT_MISMATCH],
    // Errors that would otherwise be redirected are not sent to an unregistered address either.
    ['an unregistered redirect_uri with prompt=none', { redirect_uri: 'http://evil.test/', prompt: 'none' }, REDIRECT_MISMATCH],
    ['an unregistered redirect_uri with plain PKCE', { redirect_uri: 'http://evil.test/', code_challenge_method: 'plain' }, REDIRECT_MISMATCH],
  ])('shows %s on a page and never redirects', async (_name, overrides, text) => {
    const res = await fetch(authorizeUrl(f.url, pkcePair().challenge, overrides), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toContain(`<p role="alert">${text}</p>`);
  });

  it('shows a missing redirect_uri on a page, even for a client with only one (OIDC Core §3.1.2.1)', async () => {
    const res = await fetch(authorizeUrl(f.url, pkcePair().challenge, { redirect_uri: undefined }), { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain("<p role=\"alert\">missing required parameter &#39;redirect_uri&#39;</p>");
  });

  it.each([
    ['no PKCE at all', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request', 'Authorization Server policy requires PKCE to be used for this request'],
    ['a method without a code_challenge', { code_challenge: undefined }, 'invalid_request', 'code_challenge must be provided with code_challenge_method'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request', 'not supported value of code_challenge_method'],
    ['no PKCE method', { code_challenge_method: undefined }, 'invalid_request', 'code_challenge_method must be provided'],
    ['a nonce with a scope without openid', { scope: 'api' }, 'invalid_request', 'openid scope must be requested when using the nonce parameter'],
    ['an unsupported prompt', { prompt: 'consent-please' }, 'invalid_request', 'unsupported prompt value requested'],
    ['prompt=none without a session', { prompt: 'none' }, 'login_required', 'End-User authentication is required'],
  ])('redirects %s back with error, state and iss', async (_name, overrides, error, description) => {
    const res = await fetch(authorizeUrl(f.url, pkcePair().challenge, overrides), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(location.searchParams)).toEqual({ error, error_description: description, state: 'st-1', iss: f.url });
  });

  it('redirects a token response type back in the fragment (its default response mode), with state and iss', async () => {
    const res = await fetch(authorizeUrl(f.url, pkcePair().challenge, { response_type: 'token' }), { redirect: 'manual' });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}${location.search}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(new URLSearchParams(location.hash.slice(1)))).toEqual({
      error: 'unsupported_response_type',
      error_description: 'unsupported response_type requested',
      state: 'st-1',
      iss: f.url,
    });
  });

  it('ignores an unknown scope: the login page still opens, and the tokens carry none of it', async () => {
    expect((await openLoginPage(authorizeUrl(f.url, pkcePair().challenge, { scope: 'openid admin' }))).csrfToken).not.toBe('');
    const { verifier, challenge } = pkcePair();
    const res = await exchange(await codeFor(challenge, { scope: 'openid admin' }), verifier);
    expect(res.status).toBe(200);
    const { scope, access_token } = (await res.json()) as { scope: string; access_token: string };
    expect(scope).toBe('openid');
    const claims = JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString()) as { scope: string };
    expect(claims.scope).toBe('openid');
  });

  it('refuses a wrong code_verifier (S256 is checked at the exchange)', async () => {
    const { challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await exchange(code, pkcePair().verifier));
    // A plain-method verifier (the challenge itself) is no better.
    await expectInvalidGrant(await exchange(code, challenge));
  });

  it('refuses an exchange without a code_verifier', async () => {
    const { challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await postForm(f.url, TOKEN, { grant_type: 'authorization_code', client_id: CLIENT_ID, code, redirect_uri: REDIRECT_URI }));
  });

  it('refuses a redirect_uri other than the authorization request\'s', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await exchange(code, verifier, { redirect_uri: 'http://localhost:3999/other' }));
  });

  it('refuses a code issued to another client', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    await expectInvalidGrant(await exchange(code, verifier, { client_id: 'outpost-console' }));
  });

  it('refuses a replayed code and revokes the refresh token the first exchange issued', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const { refresh_token } = (await first.json()) as { refresh_token: string };
    expect(typeof refresh_token).toBe('string');

    await expectInvalidGrant(await exchange(code, verifier));
    await expectInvalidGrant(await postForm(f.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token }));
  });

  it('refuses a code older than 60 seconds', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    await later(61, async () => expectInvalidGrant(await exchange(code, verifier)));
  });

  it('accepts a code just inside its 60 seconds', async () => {
    const { verifier, challenge } = pkcePair();
    const code = await codeFor(challenge);
    const res = await later(58, () => exchange(code, verifier));
    expect(res.status).toBe(200);
  });

  it('answers an unknown client at the token endpoint with 401 invalid_client', async () => {
    const res = await exchange('whatever', pkcePair().verifier, { client_id: 'nobody' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'invalid_client', error_description: 'client authentication failed' });
  });
});
