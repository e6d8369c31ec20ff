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

/** The login page as a script sees it: its cookie and CSRF token. */
export interface LoginPage {
  readonly status: number;
  readonly html: string;
  readonly loginCookie: string;
  readonly csrfToken: string;
}

/** Cookies a response sets, as `name=value` pairs. */
export function setCookies(res: Response): string[] {
  return res.headers.getSetCookie().map((c) => c.split(';')[0]);
}

/** GETs /authorize (with `cookies`) and reads the login page it shows. */
export async function openLoginPage(url: string, cookies: string[] = []): Promise<LoginPage> {
  const res = await fetch(url, { redirect: 'manual', headers: cookies.length ? { cookie: cookies.join('; ') } : {} });
  const html = await res.text();
  const loginCookie = setCookies(res).find((c) => c.startsWith('outpost_login=')) ?? '';
  const csrfToken = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { status: res.status, html, loginCookie, csrfToken };
}

/** Posts the login form as a browser would; returns the raw response (a 303 on success). */
export function postLogin(base: string, fields: Record<string, string>, cookies: string[]): Promise<Response> {
  return fetch(`${base}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies.join('; ') },
    body: new URLSearchParams(fields).toString(),
  });
}

/** Signs `email` in through the login page for `url`; returns the callback URL and the session cookie. */
export async function signInThroughPage(base: string, url: string, email: string, password = PASSWORD): Promise<{ callback: URL; session: string }> {
  const page = await openLoginPage(url);
  const res = await postLogin(base, { username: email, password, csrf_token: page.csrfToken }, [page.loginCookie]);
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  const session = setCookies(res).find((c) => c.startsWith('outpost_session=')) ?? '';
  return { callback: new URL(res.headers.get('location') as string), session };
}

/** POSTs a form to the token endpoint. */
export function postForm(base: string, path: string, fields: Record<string, string>): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}
