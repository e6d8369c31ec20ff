// The IdP's login page: CSRF-protected form, the token endpoint's throttle, a short-lived
// HttpOnly SameSite=Lax session that makes the next sign-in one click.
import { CITADEL, type IdpFixture } from './idp-fixture';
import { authorizeUrl, openLoginPage, PASSWORD, pkcePair, postLogin, REDIRECT_URI, setCookies, signInThroughPage, startOAuthIdp } from './oauth-fixture';

describe('login page', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startOAuthIdp({ LOGIN_MAX_FAILURES: '2' });
  });
  afterAll(() => f.close());
  const url = (overrides: Record<string, string | undefined> = {}) => authorizeUrl(f.url, pkcePair().challenge, overrides);

  it('lists the five demo users in an accessible form that cannot be framed or cached', async () => {
    const res = await fetch(url());
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await res.text();
    for (const user of CITADEL) expect(html).toContain(`<option value="${user.email}">`);
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('<html lang="en">');
  });

  it('refuses a form without the CSRF token (403) and sets no session', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD }, [page.loginCookie]);
    expect(res.status).toBe(403);
    expect(setCookies(res).some((c) => c.startsWith('outpost_session='))).toBe(false);
  });

  it('refuses a CSRF token without its cookie (a cross-site post)', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD, csrf_token: page.csrfToken }, []);
    expect(res.status).toBe(403);
  });

  it('refuses a token from another login page', async () => {
    const mine = await openLoginPage(url());
    const theirs = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[0].email, password: PASSWORD, csrf_token: theirs.csrfToken }, [mine.loginCookie]);
    expect(res.status).toBe(403);
  });

  it('sets a short-lived HttpOnly SameSite=Lax session and offers one-click "Continue" next time', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[1].email, password: PASSWORD, csrf_token: page.csrfToken }, [page.loginCookie]);
    expect(res.status).toBe(303);
    const raw = res.headers.getSetCookie().find((c) => c.startsWith('outpost_session=')) as string;
    expect(raw).toMatch(/; Path=\/; Max-Age=900; HttpOnly; SameSite=Lax$/);
    const session = raw.split(';')[0];

    const again = await openLoginPage(url(), [session]);
    expect(again.html).toContain('Continue as Morty Smith');
    const one = await postLogin(f.url, { action: 'continue', csrf_token: again.csrfToken }, [again.loginCookie, session]);
    expect(one.status).toBe(303);
    const callback = new URL(one.headers.get('location') as string);
    expect(callback.searchParams.get('code')).toMatch(/.{43}/);
    expect(callback.searchParams.get('state')).toBe('st-1');
  });

  it('does not let "Continue" stand in for the password when the client asked prompt=login', async () => {
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[2].email, password: PASSWORD, csrf_token: page.csrfToken }, [page.loginCookie]);
    const session = (res.headers.getSetCookie().find((c) => c.startsWith('outpost_session=')) as string).split(';')[0]!;
    const forced = await openLoginPage(url({ prompt: 'login' }), [session]);
    const attempt = await postLogin(f.url, { action: 'continue', csrf_token: forced.csrfToken }, [forced.loginCookie, session]);
    expect(attempt.status).toBe(401);
    expect(attempt.headers.get('location')).toBeNull();
  });

  it('answers prompt=none with login_required without a session, with a code with one', async () => {
    const none = await fetch(url({ prompt: 'none' }), { redirect: 'manual' });
    expect(new URL(none.headers.get('location') as string).searchParams.get('error')).toBe('login_required');
    const { session } = await signInThroughPage(f.url, url(), CITADEL[2].email);
    const silent = await fetch(url({ prompt: 'none' }), { redirect: 'manual', headers: { cookie: session } });
    expect(new URL(silent.headers.get('location') as string).searchParams.get('code')).toMatch(/.{43}/);
  });

  it('signs out at /logout: the session no longer offers "Continue"', async () => {
    const { session } = await signInThroughPage(f.url, url(), CITADEL[4].email);
    const out = await fetch(`${f.url}/logout?client_id=outpost-todo&post_logout_redirect_uri=${encodeURIComponent(REDIRECT_URI)}`, {
      redirect: 'manual',
      headers: { cookie: session },
    });
    expect(out.status).toBe(303);
    expect(out.headers.getSetCookie()[0]).toMatch(/^outpost_session=; Path=\/; Max-Age=0/);
    const page = await openLoginPage(url(), [session]);
    expect(page.html).not.toContain('Continue as');
  });

  it('shares the token endpoint\'s throttle: after 2 wrong passwords both answer 429 with Retry-After', async () => {
    for (let i = 0; i < 2; i += 1) {
      const page = await openLoginPage(url());
      const res = await postLogin(f.url, { username: CITADEL[3].email, password: 'wrong', csrf_token: page.csrfToken }, [page.loginCookie]);
      expect(res.status).toBe(401);
      expect(await res.text()).toContain('role="alert">Sign-in failed: the username or password is incorrect.');
    }
    const page = await openLoginPage(url());
    const res = await postLogin(f.url, { username: CITADEL[3].email, password: PASSWORD, csrf_token: page.csrfToken }, [page.loginCookie]);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    const json = await f.post(JSON.stringify({ username: CITADEL[3].email, password: PASSWORD }));
    expect(json.status).toBe(429);
  });
});
