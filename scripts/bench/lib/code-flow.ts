// One authorization-code sign-in with PKCE, driven by hand as a browser and a client would:
// /authorize, the login page, its form, the redirect back with a code, then the code
// exchanged at the token endpoint. Cookies are carried in a small jar that keeps each
// cookie's path, as a browser does. Two generations of the demo IdP are driven:
//   'oidc-provider' (since 34067fe): GET /authorize → 303 /login/<uid> → GET the page →
//     POST /login/<uid> → 303 /authorize/<uid> → 303 callback?code
//   'hand-written' (up to 7e2dc1a): GET /authorize answers 200 with the page → POST /login
//     → 303 callback?code
// The token exchange is the same form POST for both.
import { createHash, randomBytes } from 'node:crypto';

/** Which demo IdP is on the other end (its login pages and redirects differ). */
export type IdpGeneration = 'oidc-provider' | 'hand-written';

/** Where and as whom to sign in. */
export interface CodeFlowClient {
  /** The IdP's base URL (`{auth_url}`). */
  readonly base: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly username: string;
  readonly password: string;
  /** Default `openid profile email api`. */
  readonly scope?: string;
}

/** The wall time of one round trip and of each HTTP exchange in it, in ms. */
export interface CodeFlowTiming {
  readonly totalMs: number;
  readonly steps: readonly { readonly name: string; readonly ms: number }[];
}

/** Every exchange of a flow gives up after this long, so a stuck IdP cannot hold the bench. */
const STEP_TIMEOUT_MS = 10_000;
const TOKEN_PATH = '/api/v1/idp/token';

interface StoredCookie {
  readonly value: string;
  readonly path: string;
}

/** Cookies of one origin, keyed by name and path (RFC 6265 §5.3: the same name may live at two paths). */
export type CookieJar = Map<string, StoredCookie>;

/** RFC 6265 §5.1.4: the default path of a cookie set without one, from the request's path. */
function defaultPath(requestPath: string): string {
  const slash = requestPath.lastIndexOf('/');
  return slash <= 0 ? '/' : requestPath.slice(0, slash);
}

/** RFC 6265 §5.1.4 path-match. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}

/**
 * Stores a response's `Set-Cookie` lines (`getSetCookie()`) for `requestUrl`: a cookie
 * with `Max-Age` ≤ 0 or an `Expires` in the past is removed, as a browser removes it.
 */
export function storeCookies(jar: CookieJar, requestUrl: string, setCookies: readonly string[], now = Date.now()): void {
  const requestPath = new URL(requestUrl).pathname;
  for (const line of setCookies) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const name = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    let path = defaultPath(requestPath);
    let expired = false;
    for (const attribute of attributes) {
      const [key = '', ...rest] = attribute.split('=');
      const attrValue = rest.join('=');
      switch (key.toLowerCase()) {
        case 'path':
          if (attrValue.startsWith('/')) path = attrValue;
          break;
        case 'max-age':
          if (Number(attrValue) <= 0) expired = true;
          break;
        case 'expires':
          if (Date.parse(attrValue) <= now) expired = true;
          break;
      }
    }
    const key = `${name}\u0000${path}`;
    if (expired) jar.delete(key);
    else jar.set(key, { value, path });
  }
}

/** The `Cookie` header a browser would send to `url` from `jar`, longer paths first (RFC 6265 §5.4); '' when none match. */
export function cookieHeader(jar: CookieJar, url: string): string {
  const requestPath = new URL(url).pathname;
  return [...jar]
    .filter(([, cookie]) => pathMatches(requestPath, cookie.path))
    .sort(([, a], [, b]) => b.path.length - a.path.length)
    .map(([key, cookie]) => `${key.slice(0, key.indexOf('\u0000'))}=${cookie.value}`)
    .join('; ');
}

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
}

/** A browser of one origin: sends with its cookies, follows nothing by itself, times each exchange. */
function browser(base: string) {
  const jar: CookieJar = new Map();
  const steps: { name: string; ms: number }[] = [];
  return {
    steps,
    async send(name: string, pathOrUrl: string, form?: Record<string, string>): Promise<Answer> {
      const url = new URL(pathOrUrl, base).href;
      const cookie = cookieHeader(jar, url);
      const started = process.hrtime.bigint();
      const res = await fetch(url, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { ...(cookie ? { cookie } : {}), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
        signal: AbortSignal.timeout(STEP_TIMEOUT_MS),
      });
      const body = await res.text();
      steps.push({ name, ms: Number(process.hrtime.bigint() - started) / 1e6 });
      storeCookies(jar, url, res.headers.getSetCookie());
      return { status: res.status, location: res.headers.get('location') ?? undefined, body };
    },
  };
}

/**
 * Checks an answer's status and, for a redirect, where it points: `to` is a path on the IdP
 * (`/login/`, matched on the resolved URL's path) or an absolute URL prefix (the callback).
 * Returns the resolved redirect target ('' for none).
 */
function expectAnswer(step: string, answer: Answer, status: number, base: string, to?: string): string {
  const target = answer.location === undefined ? undefined : new URL(answer.location, base);
  const pointsRight = to === undefined || (target !== undefined && (to.startsWith('/') ? target.pathname.startsWith(to) : target.href.startsWith(to)));
  if (answer.status !== status || !pointsRight) {
    throw new Error(`${step}: expected ${status}${to ? ` to ${to}…` : ''}, got ${answer.status} ${answer.location ?? answer.body.slice(0, 200)}`);
  }
  return target?.href ?? '';
}

function csrfTokenOf(step: string, html: string): string {
  const token = /name="csrf_token" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`${step}: the login page has no csrf_token`);
  return token;
}

/**
 * Runs one full code flow with PKCE (S256) against `generation`'s IdP as a first sign-in
 * (no session cookie), checks the callback's state and the token response, and returns the
 * timings. Throws on any answer a working IdP would not give.
 */
export async function runCodeFlow(client: CodeFlowClient, generation: IdpGeneration): Promise<CodeFlowTiming> {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const authorize = new URL('/authorize', client.base);
  for (const [key, value] of Object.entries({
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    response_type: 'code',
    scope: client.scope ?? 'openid profile email api',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    state,
    nonce: randomBytes(12).toString('base64url'),
  })) {
    authorize.searchParams.set(key, value);
  }
  const credentials = { username: client.username, password: client.password };
  const b = browser(client.base);
  const started = process.hrtime.bigint();

  let callback: string;
  if (generation === 'oidc-provider') {
    const loginPage = expectAnswer('GET /authorize', await b.send('GET /authorize', authorize.href), 303, client.base, '/login/');
    const page = await b.send('GET /login/<uid>', loginPage);
    expectAnswer('GET /login/<uid>', page, 200, client.base);
    const posted = await b.send('POST /login/<uid>', loginPage, { ...credentials, csrf_token: csrfTokenOf('GET /login/<uid>', page.body) });
    const resume = expectAnswer('POST /login/<uid>', posted, 303, client.base, '/authorize/');
    callback = expectAnswer('GET /authorize/<uid>', await b.send('GET /authorize/<uid>', resume), 303, client.base, client.redirectUri);
  } else {
    const page = await b.send('GET /authorize', authorize.href);
    expectAnswer('GET /authorize', page, 200, client.base);
    const posted = await b.send('POST /login', '/login', { ...credentials, csrf_token: csrfTokenOf('GET /authorize', page.body) });
    callback = expectAnswer('POST /login', posted, 303, client.base, client.redirectUri);
  }

  const params = new URL(callback).searchParams;
  const code = params.get('code');
  if (!code || params.get('state') !== state) throw new Error(`the callback has no code or the wrong state: ${callback}`);
  const exchange = await b.send(`POST ${TOKEN_PATH}`, TOKEN_PATH, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: verifier,
  });
  expectAnswer(`POST ${TOKEN_PATH}`, exchange, 200, client.base);
  const tokens = JSON.parse(exchange.body) as { access_token?: unknown; id_token?: unknown };
  if (typeof tokens.access_token !== 'string' || typeof tokens.id_token !== 'string') throw new Error('the token response has no access or ID token');
  return { totalMs: Number(process.hrtime.bigint() - started) / 1e6, steps: b.steps };
}
