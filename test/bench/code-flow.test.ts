import { cookieHeader, runCodeFlow, storeCookies, type CookieJar } from '../../scripts/bench/lib/code-flow';
import { CITADEL } from '../idp/idp-fixture';
import { CLIENT_ID, PASSWORD, REDIRECT_URI, startOAuthIdp } from '../idp/oauth-fixture';

describe('the code-flow driver\'s cookie jar', () => {
  const base = 'http://127.0.0.1:1';

  it('sends a cookie only under its path, longer paths first', () => {
    const jar: CookieJar = new Map();
    storeCookies(jar, `${base}/authorize?x=1`, ['outpost_login=a; path=/login/u1; httponly', 'outpost_login.sig=s; path=/login/u1', 'site=1; path=/']);
    storeCookies(jar, `${base}/login/u1`, ['outpost_login_resume=r; path=/authorize/u1']);
    expect(cookieHeader(jar, `${base}/login/u1`)).toBe('outpost_login=a; outpost_login.sig=s; site=1');
    expect(cookieHeader(jar, `${base}/login/u10`)).toBe('site=1');
    expect(cookieHeader(jar, `${base}/authorize/u1`)).toBe('outpost_login_resume=r; site=1');
    expect(cookieHeader(jar, `${base}/authorize`)).toBe('site=1');
  });

  it('defaults the path to the request\'s directory, and replaces a cookie of the same name and path', () => {
    const jar: CookieJar = new Map();
    storeCookies(jar, `${base}/a/b`, ['k=1']);
    storeCookies(jar, `${base}/a/c`, ['k=2']);
    expect(cookieHeader(jar, `${base}/a/x`)).toBe('k=2');
    expect(cookieHeader(jar, `${base}/b`)).toBe('');
  });

  it('drops a cookie the server expires, by Max-Age or by Expires', () => {
    const jar: CookieJar = new Map();
    storeCookies(jar, `${base}/`, ['a=1; path=/', 'b=2; path=/', 'c=3; path=/; expires=Wed, 01 Jan 2100 00:00:00 GMT']);
    storeCookies(jar, `${base}/`, ['a=; path=/; max-age=0', 'b=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    expect(cookieHeader(jar, `${base}/`)).toBe('c=3');
  });
});

describe('runCodeFlow against the current IdP (oidc-provider)', () => {
  it('signs in through the login page and exchanges the code, timing each hop', async () => {
    const f = await startOAuthIdp();
    try {
      const timing = await runCodeFlow(
        { base: f.url, clientId: CLIENT_ID, redirectUri: REDIRECT_URI, username: CITADEL[0].email, password: PASSWORD },
        'oidc-provider',
      );
      expect(timing.steps.map((s) => s.name)).toEqual(['GET /authorize', 'GET /login/<uid>', 'POST /login/<uid>', 'GET /authorize/<uid>', 'POST /api/v1/idp/token']);
      expect(timing.totalMs).toBeGreaterThanOrEqual(timing.steps.reduce((sum, s) => sum + s.ms, 0));
    } finally {
      await f.close();
    }
  });

  it('fails loudly on a wrong password instead of timing an error page', async () => {
    const f = await startOAuthIdp();
    try {
      await expect(
        runCodeFlow({ base: f.url, clientId: CLIENT_ID, redirectUri: REDIRECT_URI, username: CITADEL[0].email, password: 'wrong' }, 'oidc-provider'),
      ).rejects.toThrow('POST /login/<uid>: expected 303 to /authorize/…, got 401');
    } finally {
      await f.close();
    }
  });
});
