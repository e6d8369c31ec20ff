import { createHash, randomBytes } from 'node:crypto';
import { startIdpFixture, type FakeClock, type IdpFixture } from './idp-fixture';

/** The todo page's registered redirect URI in these tests (TODO_URL below, plus `/`). */
export const TODO_URL = 'http://localhost:3999';
export const REDIRECT_URI = `${TODO_URL}/`;
export const CLIENT_ID = 'outpost-todo';
export const PASSWORD = 'V@erySecre#t123!';

/** An IdP whose todo client is registered at {@link REDIRECT_URI}. */
export function startOAuthIdp(env: Record<string, string> = {}, clock?: FakeClock): Promise<IdpFixture> {
  return startIdpFixture({ TODO_URL, ...env }, clock ? { clock } : {});
}

/** A fresh PKCE pair (RFC 7636 §4.1, §4.2). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An /authorize URL with sound defaults; `overrides` replace or (as undefined) drop parameters. */
export function authorizeUrl(base: string, challenge: string, overrides: Record<string, string | undefined> = {}): string {
  const params: Record<string, string | undefined> = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid profile email api',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    nonce: 'n-1',
    ...overrides,
  };
  const url = new URL(`${base}/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

/** The login page as a script sees it: the cookies of its sign-in, its CSRF token and where it posts. */
export interface LoginPage {
  readonly status: number;
  readonly html: string;
  /** Every cookie /authorize set for this sign-in (the provider's interaction cookies), as one Cookie header part. */
  readonly loginCookie: string;
  readonly csrfToken: string;
  /** The form's `action`: `/login/<uid>`. */
  readonly action: string;
}

/** Cookies a response sets, as `name=value` pairs. */
export function setCookies(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(';')[0]!);
}

/**
 * GETs /authorize (with `cookies`) as a browser would: the provider answers 303 to the login
 * page of a new sign-in, which is then read. When /authorize answers otherwise (an error page,
 * a redirect back to the client) that answer is returned, with no form.
 */
export async function openLoginPage(url: string, cookies: string[] = []): Promise<LoginPage> {
  const first = await fetch(url, { redirect: 'manual', headers: cookies.length ? { cookie: cookies.join('; ') } : {} });
  const location = first.headers.get('location');
  const origin = new URL(url).origin;
  if (first.status !== 303 || !location || !location.startsWith('/login/')) {
    return { status: first.status, html: await first.text(), loginCookie: '', csrfToken: '', action: '' };
  }
  const loginCookie = setCookies(first).join('; ');
  const res = await fetch(`${origin}${location}`, { redirect: 'manual', headers: { cookie: [loginCookie, ...cookies].join('; ') } });
  const html = await res.text();
  const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { status: res.status, html, loginCookie, csrfToken, action: location };
}

/** Posts the login form of `page` (or of `action`) as a browser would; returns the raw response (a 303 on success). */
export function postLogin(base: string, fields: Record<string, string>, cookies: string[], action = '/login/unknown'): Promise<Response> {
  return fetch(`${base}${action}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * Follows a signed-in login form's 303 back through the provider's /authorize/<uid> to the
 * client: the callback URL, and the session cookie the provider set on the way.
 */
export async function finishSignIn(base: string, loginResponse: Response, loginCookie: string): Promise<{ callback: URL; session: string }> {
  if (loginResponse.status !== 303) throw new Error(`login answered ${loginResponse.status}`);
  const resume = await fetch(new URL(loginResponse.headers.get('location') as string, base), {
    redirect: 'manual',
    headers: { cookie: [loginCookie, ...setCookies(loginResponse)].join('; ') },
  });
  if (resume.status !== 303) throw new Error(`resuming the sign-in answered ${resume.status}`);
  const session = setCookies(resume).filter((c) => c.startsWith('outpost_session')).join('; ');
  return { callback: new URL(resume.headers.get('location') as string), session };
}

/** Signs `email` in through the login page for `url`; returns the callback URL and the session cookie. */
export async function signInThroughPage(base: string, url: string, email: string, password = PASSWORD): Promise<{ callback: URL; session: string }> {
  const page = await openLoginPage(url);
  const res = await postLogin(base, { username: email, password, csrf_token: page.csrfToken }, [page.loginCookie], page.action);
  return finishSignIn(base, res, page.loginCookie);
}

/** POSTs a form to the token endpoint. */
export function postForm(base: string, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Exchanges the code of `callback` at the token endpoint (RFC 6749 §4.1.3, PKCE verifier): the raw response. */
export function exchangeCode(base: string, callback: URL, verifier: string, clientId = CLIENT_ID, redirectUri = REDIRECT_URI): Promise<Response> {
  return postForm(base, '/api/v1/idp/token', {
    grant_type: 'authorization_code',
    client_id: clientId,
    code: callback.searchParams.get('code') as string,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  });
}
