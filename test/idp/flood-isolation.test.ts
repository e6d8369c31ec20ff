// One user's or one set of addresses' activity never pushes out someone else's live grant or
// open login form (issue 18, items 1 and 5). The IdP runs with small table bounds so a flood
// takes a few dozen requests; flooding addresses are real: Linux routes all of 127/8 to lo.
import { request } from 'node:http';
import { storeLimits, type StoreLimits } from '../../src/idp/oauth/store-limits';
import { CITADEL, serveIdpVariant, type IdpFixture, type IdpVariant } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, openLoginPage, PASSWORD, pkcePair, postForm, postLogin, REDIRECT_URI, setCookies, signInThroughPage, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';

/** GETs `url` from `localAddress`: status, the headers that matter here and the body. */
function openFrom(url: string, localAddress: string): Promise<{ status: number; retryAfter?: string; cacheControl?: string; loginCookie: boolean; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { localAddress, agent: false }, (res) => {
      const loginCookie = (res.headers['set-cookie'] ?? []).some((c) => c.startsWith('outpost_login='));
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], cacheControl: res.headers['cache-control'], loginCookie, body }),
      );
    })
      .on('error', reject)
      .end();
  });
}

describe('one user or one flood never pushes out another user’s grant or form', () => {
  let f: IdpFixture;
  let idp: IdpVariant;
  async function start(limits: Partial<StoreLimits>): Promise<void> {
    f = await startOAuthIdp();
    idp = await serveIdpVariant(f, { limits: storeLimits(limits) });
  }
  afterEach(async () => {
    await idp.close();
    await f.close();
  });

  /** Signs `user` in through the login page and exchanges the code: the token response. */
  async function codeFlow(user: (typeof CITADEL)[number]): Promise<Record<string, unknown>> {
    const { verifier, challenge } = pkcePair();
    const { callback } = await signInThroughPage(idp.url, authorizeUrl(idp.url, challenge), user.email);
    const res = await postForm(idp.url, TOKEN, {
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      code: callback.searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      code_verifier: verifier,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  }
  const refresh = (token: unknown) => postForm(idp.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: String(token) });

  it('one user rotating far more often than the table holds leaves another user’s refresh token working', async () => {
    await start({ maxEntries: 4, maxPerUser: 2 });
    const rick = await codeFlow(CITADEL[0]);
    let morty = (await codeFlow(CITADEL[1])).refresh_token;
    const mortyFirst = morty;
    for (let i = 0; i < 30; i += 1) {
      const res = await refresh(morty);
      expect(res.status).toBe(200);
      morty = ((await res.json()) as Record<string, unknown>).refresh_token;
    }
    const rickAgain = await refresh(rick.refresh_token);
    expect(rickAgain.status).toBe(200);
    expect(typeof ((await rickAgain.json()) as Record<string, unknown>).refresh_token).toBe('string');
    // Morty's first token, 30 rotations old, is still recognised as spent: his family goes.
    const replay = await refresh(mortyFirst);
    expect({ status: replay.status, body: await replay.json() }).toEqual({
      status: 400,
      body: { error: 'invalid_grant', error_description: 'the refresh token was already used; its family is revoked' },
    });
    expect((await refresh(morty)).status).toBe(400);
  });

  it('a flood of login pages from 40 addresses leaves a quiet user’s earlier form usable', async () => {
    await start({ maxEntries: 20, maxFormsPerAddress: 3 });
    const url = authorizeUrl(idp.url, pkcePair().challenge);
    const quiet = await openLoginPage(url);
    const flood = [];
    for (let a = 1; a <= 40; a += 1) for (let i = 0; i < 3; i += 1) flood.push(await openFrom(url, `127.0.5.${a}`));
    const res = await postLogin(idp.url, { username: CITADEL[2].email, password: PASSWORD, csrf_token: quiet.csrfToken }, [quiet.loginCookie]);
    expect(res.status).toBe(303);
    // The flood got forms until its addresses held one each, then busy pages: never an error.
    expect(new Set(flood.map((r) => r.status))).toEqual(new Set([200, 503]));
  });

  it('answers 503 with Retry-After and no form while every open form is its address’s only one', async () => {
    await start({ maxEntries: 2 });
    const url = authorizeUrl(idp.url, pkcePair().challenge);
    const quiet = await openLoginPage(url);
    expect((await openFrom(url, '127.0.6.1')).status).toBe(200);
    f.clock.advance(30);
    const refused = await openFrom(url, '127.0.6.2');
    expect(refused).toMatchObject({ status: 503, retryAfter: '570', cacheControl: 'no-store', loginCookie: false });
    expect(refused.body).toContain('<p role="alert">Too many sign-ins are open at the moment. Try again in 570 seconds.</p>');
    expect(refused.body).not.toContain('csrf_token');
    const posted = await postLogin(idp.url, { username: CITADEL[2].email, password: PASSWORD, csrf_token: quiet.csrfToken }, [quiet.loginCookie]);
    expect(posted.status).toBe(303);
  });

  it('while full of other users’ single grants: no session cookie, a busy redirect instead of a code, no refresh token', async () => {
    await start({ maxEntries: 1 });
    await codeFlow(CITADEL[0]); // Rick holds the one session, code and refresh-token family
    const page = await openLoginPage(authorizeUrl(idp.url, pkcePair().challenge));
    const res = await postLogin(idp.url, { username: CITADEL[1].email, password: PASSWORD, csrf_token: page.csrfToken }, [page.loginCookie]);
    expect(res.status).toBe(303);
    expect(setCookies(res).some((c) => c.startsWith('outpost_session='))).toBe(false);
    const callback = new URL(res.headers.get('location') as string);
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'too many sign-ins are under way; try again shortly',
      state: 'st-1',
      iss: f.url,
    });
    f.clock.advance(61); // Rick's code expires; his session and family stay
    const tokens = await codeFlow(CITADEL[1]);
    expect(tokens).toMatchObject({ token_type: 'bearer', scope: 'openid profile email api' });
    expect(tokens).not.toHaveProperty('refresh_token');
  });
});
