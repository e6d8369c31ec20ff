// Regression tests of issue 18 (items 1 and 5) on the provider's SQL storage: one user's or
// one set of addresses' activity never pushes out someone else's live grant or open login
// form. Storage is now a row per token or sign-in with its own expiry (oidc-storage.ts), so
// there is no shared bound left to flood; these check that the behaviour the old bounded
// tables had to defend still holds. Flooding addresses are real: Linux routes 127/8 to lo.
import { request } from 'node:http';
import { CITADEL, type IdpFixture } from './idp-fixture';
import { authorizeUrl, CLIENT_ID, exchangeCode, finishSignIn, openLoginPage, PASSWORD, pkcePair, postForm, postLogin, signInThroughPage, startOAuthIdp } from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';

interface FromAnswer {
  readonly status: number;
  readonly location?: string;
  /** The `name=value` parts of the cookies set. */
  readonly cookies: string[];
  readonly body: string;
}

/** GETs `url` from `localAddress` (with `cookie`): status, where it redirects, the cookies set and the body. */
function openFrom(url: string, localAddress: string, cookie?: string): Promise<FromAnswer> {
  return new Promise((resolve, reject) => {
    request(url, { localAddress, agent: false, headers: cookie ? { cookie } : {} }, (res) => {
      const cookies = (res.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!);
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, cookies, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** Opens a login page from `localAddress` as a browser there would: /authorize, then the form with its cookies. */
async function openLoginPageFrom(url: string, localAddress: string): Promise<{ authorize: FromAnswer; page: FromAnswer }> {
  const authorize = await openFrom(url, localAddress);
  const page = authorize.location?.startsWith('/login/')
    ? await openFrom(`${new URL(url).origin}${authorize.location}`, localAddress, authorize.cookies.join('; '))
    : authorize;
  return { authorize, page };
}

describe('one user or one flood never pushes out another user’s grant or form', () => {
  let f: IdpFixture;
  beforeEach(async () => {
    f = await startOAuthIdp();
  });
  afterEach(() => f.close());

  /** Signs `user` in through the login page and exchanges the code: the token response. */
  async function codeFlow(user: (typeof CITADEL)[number]): Promise<Record<string, unknown>> {
    const { verifier, challenge } = pkcePair();
    const { callback } = await signInThroughPage(f.url, authorizeUrl(f.url, challenge), user.email);
    const res = await exchangeCode(f.url, callback, verifier);
    expect(res.status).toBe(200);
    return (await res.json()) as Record<string, unknown>;
  }
  const refresh = (token: unknown) => postForm(f.url, TOKEN, { grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: String(token) });
  const INVALID_GRANT = { status: 400, body: { error: 'invalid_grant', error_description: 'grant request is invalid' } };

  it('one user rotating 30 times leaves another user’s refresh token working, and the 30-rotations-old token still revokes its family', async () => {
    const rick = await codeFlow(CITADEL[0]);
    let morty = (await codeFlow(CITADEL[1])).refresh_token;
    const mortyFirst = morty;
    const seen = new Set([morty]);
    for (let i = 0; i < 30; i += 1) {
      const res = await refresh(morty);
      expect(res.status).toBe(200);
      morty = ((await res.json()) as Record<string, unknown>).refresh_token;
      seen.add(morty);
    }
    expect(seen.size).toBe(31); // every use rotated

    const rickAgain = await refresh(rick.refresh_token);
    expect(rickAgain.status).toBe(200);
    const rickTokens = (await rickAgain.json()) as Record<string, unknown>;
    expect(typeof rickTokens.refresh_token).toBe('string');
    expect(rickTokens.refresh_token).not.toBe(rick.refresh_token);

    // Morty's first token, 30 rotations old, is still recognised as spent: his whole family goes.
    const replay = await refresh(mortyFirst);
    expect({ status: replay.status, body: await replay.json() }).toEqual(INVALID_GRANT);
    const latest = await refresh(morty);
    expect({ status: latest.status, body: await latest.json() }).toEqual(INVALID_GRANT);
    // Rick's family is not Morty's: it still rotates.
    expect((await refresh(rickTokens.refresh_token)).status).toBe(200);
  });

  it('a flood of login pages from 40 addresses leaves a quiet user’s earlier form usable', async () => {
    const url = authorizeUrl(f.url, pkcePair().challenge);
    const { verifier, challenge } = pkcePair();
    const quiet = await openLoginPage(authorizeUrl(f.url, challenge));
    expect(quiet.status).toBe(200);

    const flood = [];
    for (let a = 1; a <= 40; a += 1) for (let i = 0; i < 3; i += 1) flood.push(await openLoginPageFrom(url, `127.0.5.${a}`));
    // Every flooding browser got a sign-in of its own and its form: nothing is shared to run out.
    expect(flood.every(({ authorize }) => authorize.status === 303 && authorize.cookies.some((c) => c.startsWith('outpost_login=')))).toBe(true);
    expect(flood.every(({ page }) => page.status === 200 && page.body.includes('name="csrf_token"'))).toBe(true);
    expect(new Set(flood.map(({ authorize }) => authorize.location)).size).toBe(120);

    const res = await postLogin(f.url, { username: CITADEL[2].email, password: PASSWORD, csrf_token: quiet.csrfToken }, [quiet.loginCookie], quiet.action);
    expect(res.status).toBe(303);
    const { callback } = await finishSignIn(f.url, res, quiet.loginCookie);
    const tokens = await exchangeCode(f.url, callback, verifier);
    expect(tokens.status).toBe(200);
    expect(await tokens.json()).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email api' });
  });
});
