// The IdP's login page (the provider's login interaction at /login/<uid>): a CSRF-protected
// form bound to the browser that opened it, the token endpoint's throttle, and the
// provider's short-lived HttpOnly SameSite=Lax session, which sends the next /authorize
// straight back with a code (single sign-on) unless the client asks prompt=login.
import { CITADEL, type IdpFixture } from './idp-fixture';
import {
  authorizeUrl,
  CLIENT_ID,
  finishSignIn,
  openLoginPage,
  PASSWORD,
  pkcePair,
  postForm,
  postLogin,
  REDIRECT_URI,
  setCookies,
  signInThroughPage,
  startOAuthIdp,
} from './oauth-fixture';

const TOKEN = '/api/v1/idp/token';

/** `name=value` cookie parts, later ones replacing earlier ones of the same name; cleared ones dropped. */
function jar(...parts: string[][]): string {
  const cookies = new Map<string, string>();
  for (const part of parts.flat().flatMap((p) => p.split('; '))) {
    const [name] = part.split('=', 1);
    if (part.length > name!.length + 1) cookies.set(name!, part);
    else cookies.delete(name!);
  }
  return [...cookies.values()].join('; ');
}

/** The payload of a JWT, unverified (the interop test verifies signatures). */
function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
}

describe('login page', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp({ LOGIN_MAX_FAILURES: '2' });
  });
  afterAll(() => f.close());
  const url = (overrides: Record<string, string | undefined> = {}, challenge = pkcePair().challenge) => authorizeUrl(f.url, challenge, overrides);

  /** Asserts `location` is the client's callback with a code for state st-1 (and the issuer); returns the code. */
  function expectCode(location: string | null): string {
    const callback = new URL(location as string);
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('state')).toBe('st-1');
    expect(callback.searchParams.get('iss')).toBe(f.url);
    expect(callback.searchParams.get('error')).toBeNull();
    const code = callback.searchParams.get('code') as string;
    expect(code).toMatch(/^[\w-]{43}$/);
    return code;
  }

  it('lists the five demo users in an accessible form that cannot be framed or cached', async () => {
    const start = await fetch(url(), { redirect: 'manual' });
    expect(start.status).toBe(303);
    const action = start.headers.get('location') as string;
    expect(action).toMatch(/^\/login\/[\w-]{43}$/);
    // The interaction cookie binds the form to this browser: HttpOnly, SameSite=Lax, only sent to this form.
    const raw = start.headers.getSetCookie().find((c) => c.startsWith('outpost_login=')) as string;
    expect(raw).toMatch(new RegExp(`^outpost_login=[\\w-]+; path=${action}; expires=[^;]+; samesite=lax; httponly$`));

    const res = await fetch(`${f.url}${action}`, { redirect: 'manual', headers: { cookie: setCookies(start).join('; ') } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    for (const user of CITADEL) expect(html).toContain(`<option value="${user.email}">`);
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('<html lang="en">');
    expect(html).toContain(`<form method="post" action="${action}"><input type="hidden" name="csrf_token" value="`);
  });

  it('refuses a form without the CSRF token (403) and sets no session', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD }, [page.loginCookie], page.action);
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('<p role="alert">This form was not sent by the sign-in page.');
    expect(setCookies(res).some((c) => c.startsWith('outpost_session'))).toBe(false);
  });

  it('refuses a CSRF token without its cookie (a cross-site post)', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD, csrf_token: page.csrfToken }, [], page.action);
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('<p role="alert">This sign-in form expired or was not ours.');
  });

  it('refuses a token from another login page', async () => {
    const mine = await openLoginPage(url());
    const theirs = await openLoginPage(url());
    expect(theirs.csrfToken).not.toBe(mine.csrfToken);
    const res = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD, csrf_token: theirs.csrfToken }, [mine.loginCookie], mine.action);
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('<p role="alert">This form was not sent by the sign-in page.');
    // Nor may their form be posted with my cookie.
    const swapped = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD, csrf_token: theirs.csrfToken }, [mine.loginCookie], theirs.action);
    expect(swapped.status).toBe(403);
  });

  it('sets a short-lived HttpOnly SameSite=Lax session, and with it /authorize sends a code straight back', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[1].email, password: PASSWORD, csrf_token: page.csrfToken }, [page.loginCookie], page.action);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${f.url}/authorize/${page.action.split('/')[2]}`);
    const resume = await fetch(res.headers.get('location') as string, { redirect: 'manual', headers: { cookie: jar([page.loginCookie], setCookies(res)) } });
    expect(resume.status).toBe(303);
    expectCode(resume.headers.get('location'));

    const raws = resume.headers.getSetCookie().filter((c) => c.startsWith('outpost_session'));
    expect(raws.map((c) => c.split('=')[0])).toEqual(['outpost_session', 'outpost_session.sig']);
    for (const raw of raws) {
      const [, expires] = /^outpost_session(?:\.sig)?=[\w-]+; path=\/; samesite=lax; httponly; expires=([^;]+)$/.exec(raw) ?? [];
      expect(expires).toBeDefined();
      const lifetime = (Date.parse(expires!) - Date.parse(resume.headers.get('date') as string)) / 1000;
      expect(lifetime).toBeGreaterThanOrEqual(899);
      expect(lifetime).toBeLessThanOrEqual(901);
    }
    const session = setCookies(resume).filter((c) => c.startsWith('outpost_session')).join('; ');

    // Next time: no login page, a code for Morty at once.
    const { verifier, challenge } = pkcePair();
    const again = await fetch(url({}, challenge), { redirect: 'manual', headers: { cookie: session } });
    expect(again.status).toBe(303);
    const code = expectCode(again.headers.get('location'));
    const tokens = await postForm(f.url, TOKEN, { grant_type: 'authorization_code', client_id: CLIENT_ID, code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(tokens.status).toBe(200);
    expect(claimsOf(((await tokens.json()) as { id_token: string }).id_token)).toMatchObject({ sub: CITADEL[1].id, aud: CLIENT_ID });
  });

  it('widens the grant when a signed-in user\'s client asks for more scope: a code at once, not a loop', async () => {
    const { session } = await signInThroughPage(f.url, url({ scope: 'openid', nonce: undefined }), CITADEL[0].email);
    const { verifier, challenge } = pkcePair();
    const wider = await fetch(url({ scope: 'openid profile email api' }, challenge), { redirect: 'manual', headers: { cookie: session } });
    expect(wider.status).toBe(303);
    const code = expectCode(wider.headers.get('location'));
    const tokens = await postForm(f.url, TOKEN, { grant_type: 'authorization_code', client_id: CLIENT_ID, code, redirect_uri: REDIRECT_URI, code_verifier: verifier });
    expect(((await tokens.json()) as { scope: string }).scope).toBe('openid profile email api');
  });

  it('asks for the password again when the client sends prompt=login, session or not', async () => {
    const { session } = await signInThroughPage(f.url, url(), CITADEL[2].email);
    const forced = await openLoginPage(url({ prompt: 'login' }), [session]);
    expect(forced.status).toBe(200);
    expect(forced.action).toMatch(/^\/login\/[\w-]{43}$/);
    expect(forced.csrfToken).not.toBe('');

    // Without a password the form is shown again; no code.
    const empty = await postLogin(f.url, { username: CITADEL[2].email, csrf_token: forced.csrfToken }, [forced.loginCookie, session], forced.action);
    expect(empty.status).toBe(400);
    expect(empty.headers.get('location')).toBeNull();
    expect(await empty.text()).toContain('<p role="alert">Choose a user and enter the password.</p>');

    // Skipping the form and resuming the authorization directly yields a new login page, not a code.
    const uid = forced.action.split('/')[2];
    const skipped = await fetch(`${f.url}/authorize/${uid}`, { redirect: 'manual', headers: { cookie: jar([forced.loginCookie], [session]) } });
    expect(skipped.status).toBe(303);
    expect(skipped.headers.get('location')).toMatch(/^\/login\/[\w-]{43}$/);
    expect(skipped.headers.get('location')).not.toBe(forced.action);
  });

  it('issues a code after prompt=login only once the password is entered', async () => {
    const { session } = await signInThroughPage(f.url, url(), CITADEL[2].email);
    const forced = await openLoginPage(url({ prompt: 'login' }), [session]);
    const res = await postLogin(f.url, { username: CITADEL[2].email, password: PASSWORD, csrf_token: forced.csrfToken }, [forced.loginCookie, session], forced.action);
    const { callback } = await finishSignIn(f.url, res, jar([forced.loginCookie], [session]));
    expectCode(callback.href);
  });

  it('answers prompt=none with login_required without a session, with a code with one', async () => {
    const none = await fetch(url({ prompt: 'none' }), { redirect: 'manual' });
    expect(none.status).toBe(303);
    const refused = new URL(none.headers.get('location') as string);
    expect(`${refused.origin}${refused.pathname}`).toBe(REDIRECT_URI);
    expect(Object.fromEntries(refused.searchParams)).toEqual({
      error: 'login_required',
      error_description: 'End-User authentication is required',
      state: 'st-1',
      iss: f.url,
    });
    const { session } = await signInThroughPage(f.url, url(), CITADEL[2].email);
    const silent = await fetch(url({ prompt: 'none' }), { redirect: 'manual', headers: { cookie: session } });
    expect(silent.status).toBe(303);
    expectCode(silent.headers.get('location'));
  });

  it('signs out at /logout after confirmation: the session no longer signs anyone in', async () => {
    const { session } = await signInThroughPage(f.url, url(), CITADEL[4].email);
    const ask = await fetch(`${f.url}/logout?client_id=${CLIENT_ID}&post_logout_redirect_uri=${encodeURIComponent(REDIRECT_URI)}&state=bye`, {
      redirect: 'manual',
      headers: { cookie: session },
    });
    expect(ask.status).toBe(200);
    const html = await ask.text();
    expect(html).toContain('<p>Sign out of the Outpost IdP?</p>');
    const action = /<form id="op.logoutForm" method="post" action="([^"]+)">/.exec(html)?.[1] as string;
    expect(action).toBe(`${f.url}/logout/confirm`);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const cookies = jar([session], setCookies(ask));

    // Asking alone signs no one out (a link cannot): the session still gives a code.
    const stillIn = await fetch(url({ prompt: 'none' }), { redirect: 'manual', headers: { cookie: cookies } });
    expectCode(stillIn.headers.get('location'));

    const out = await fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe(`${REDIRECT_URI}?state=bye`);
    expect(out.headers.getSetCookie()[0]).toMatch(/^outpost_session=; path=\/; expires=Thu, 01 Jan 1970 00:00:00 GMT/);

    // The old cookie is worth nothing now: the login page again, and login_required with prompt=none.
    const page = await openLoginPage(url(), [cookies]);
    expect(page.status).toBe(200);
    expect(page.csrfToken).not.toBe('');
    const none = await fetch(url({ prompt: 'none' }), { redirect: 'manual', headers: { cookie: cookies } });
    expect(new URL(none.headers.get('location') as string).searchParams.get('error')).toBe('login_required');
  });

  it('shares the token endpoint\'s throttle: after 2 wrong passwords the page and the JSON endpoint answer 429 with Retry-After', async () => {
    for (let i = 0; i < 2; i += 1) {
      const page = await openLoginPage(url());
      const res = await postLogin(f.url, { username: CITADEL[3].email, password: 'wrong', csrf_token: page.csrfToken }, [page.loginCookie], page.action);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('<p role="alert">Sign-in failed: the username or password is incorrect.</p>');
    }
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[3].email, password: PASSWORD, csrf_token: page.csrfToken }, [page.loginCookie], page.action);
    expect(res.status).toBe(429);
    expect(res.headers.get('location')).toBeNull();
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(await res.text()).toContain(`<p role="alert">Too many failed sign-ins; try again in ${retryAfter} seconds.</p>`);

    const json = await f.post(JSON.stringify({ username: CITADEL[3].email, password: PASSWORD }));
    expect(json.status).toBe(429);
    expect(Number(json.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await json.json()) as { error: string }).error).toBe('too_many_requests');
  });
});
