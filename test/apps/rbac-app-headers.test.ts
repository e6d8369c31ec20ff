/**
 * The full header set of every kind of answer the RBAC app gives, pinned name by name and
 * value by value: a header lost or changed (a security header, a challenge, Retry-After)
 * fails here. Only what differs per request is left out: `date` and `x-request-id` (whose
 * shape is checked instead). Headers are read from the raw response, so a duplicate shows.
 */
import http from 'node:http';
import type { Express } from 'express';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { createRbacApp } from '../../src/apps/rbac';
import { AuthorizerUnavailableError, openLocalAuthorizer, type Authorizer } from '../../src/authorizer';
import { loadDirectorySeed } from '../../src/directory';
import { silentLogger } from '../../src/observability';
import { startAppFixture, USERS, type AppFixture } from './app-fixture';
import { SECURITY_HEADERS } from '../helpers/pinned-security-headers';

/** Per-request headers: present, but their values differ each time. */
const PER_REQUEST = new Set(['date', 'x-request-id']);

/**
 * helmet's headers as every answer carries them (its defaults, no `X-Powered-By`), with its
 * default Content-Security-Policy minus `upgrade-insecure-requests` over plain http
 * (src/http/content-security-policy.ts).
 */
const byName = (a: [string, string], b: [string, string]) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1);

interface RawAnswer {
  readonly status: number;
  /** `[lower-case name, value]` in the order sent, per-request headers left out. */
  readonly headers: [string, string][];
  readonly requestId: string | undefined;
  readonly body: string;
}

/** One request over a fresh connection, answered with its raw header lines. */
function send(base: string, method: string, path: string, authorization?: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${path}`, { method, agent: false, headers: authorization ? { authorization } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const headers: [string, string][] = [];
        let requestId: string | undefined;
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          const value = res.rawHeaders[i + 1]!;
          if (name === 'x-request-id') requestId = value;
          if (!PER_REQUEST.has(name)) headers.push([name, value]);
        }
        resolve({ status: res.statusCode ?? 0, headers, requestId, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('RBAC app response headers, every kind of answer', () => {
  let fixture: AppFixture;
  let url: string;
  let unavailableUrl: string;
  let rick: { access_token: string; id_token: string };
  let morty: { access_token: string };
  const authorizers: Authorizer[] = [];

  const build = (authorizer: Authorizer): Express => {
    authorizers.push(authorizer);
    return createRbacApp({ authenticate: accessTokenMiddleware(fixture.config), authorizer, policyName: 'rbac', logger: silentLogger() });
  };

  beforeAll(async () => {
    fixture = await startAppFixture();
    const { directory } = loadDirectorySeed(fixture.config.directorySeedFile);
    url = await fixture.serve(build(openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: 'rbac', directory })));
    const unavailable: Authorizer = {
      kind: 'edge',
      authorize: () => Promise.reject(new AuthorizerUnavailableError('edge authorizer unreachable')),
      close: async () => undefined,
    };
    unavailableUrl = await fixture.serve(build(unavailable));
    rick = await fixture.idp.token(USERS.rick.email);
    morty = await fixture.idp.token(USERS.morty.email);
  });
  afterAll(async () => {
    await Promise.all(authorizers.map((a) => a.close()));
    await fixture.close();
  });

  /** The sorted `[name, value]` list an answer should carry: the security headers, then `extra`. */
  const expected = (extra: Record<string, string>): [string, string][] =>
    [...Object.entries(SECURITY_HEADERS), ...Object.entries(extra), ['connection', 'close'] as [string, string]].sort(byName);

  const json = (body: string) => ({ 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)) });

  const expectAnswer = async (answer: Promise<RawAnswer>, status: number, body: string, extra: Record<string, string>) => {
    const got = await answer;
    expect(got.status).toBe(status);
    expect(got.body).toBe(body);
    expect([...got.headers].sort(byName)).toEqual(expected(extra));
    expect(got.requestId).toMatch(/^[0-9a-f-]{36}$/);
  };

  it('allowed (200): the greeting as text, the security headers, nothing else', async () => {
    const body = 'Hello from DELETE /resource/mega-seed';
    await expectAnswer(send(url, 'DELETE', '/resource/mega-seed', `Bearer ${rick.access_token}`), 200, body, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(body.length),
    });
  });

  it('denied (403): the forbidden body, the security headers, no challenge', async () => {
    const body = '{"code":"forbidden","message":"Forbidden by policy rbac.DELETE"}';
    await expectAnswer(send(url, 'DELETE', '/resource/mega-seed', `Bearer ${morty.access_token}`), 403, body, json(body));
  });

  it('no token (401): a bare Bearer challenge', async () => {
    const body = '{"error":"unauthorized","error_description":"an access token is required: send Authorization: Bearer <access_token>"}';
    await expectAnswer(send(url, 'DELETE', '/resource/mega-seed'), 401, body, { 'www-authenticate': 'Bearer realm="outpost"', ...json(body) });
  });

  it('an ID token (401 invalid_token): the challenge names the error', async () => {
    const body = '{"error":"invalid_token","error_description":"ID tokens are not accepted here; use the access_token"}';
    await expectAnswer(send(url, 'DELETE', '/resource/mega-seed', `Bearer ${rick.id_token}`), 401, body, {
      'www-authenticate': 'Bearer realm="outpost", error="invalid_token", error_description="ID tokens are not accepted here; use the access_token"',
      ...json(body),
    });
  });

  it('a malformed Authorization header (400 invalid_request): the challenge, quotes escaped', async () => {
    const body = '{"error":"invalid_request","error_description":"the Authorization header must be \\"Bearer\\" followed by exactly one token"}';
    await expectAnswer(send(url, 'DELETE', '/resource/mega-seed', 'Bearer'), 400, body, {
      'www-authenticate': 'Bearer realm="outpost", error="invalid_request", error_description="the Authorization header must be \\"Bearer\\" followed by exactly one token"',
      ...json(body),
    });
  });

  it('a method the resource route does not serve (OPTIONS, PATCH): the JSON 404, no Allow header', async () => {
    for (const method of ['OPTIONS', 'PATCH']) {
      const body = `{"code":"not_found","message":"no route for ${method} /resource/mega-seed"}`;
      await expectAnswer(send(url, method, '/resource/mega-seed', `Bearer ${rick.access_token}`), 404, body, json(body));
    }
  });

  it('errors: a bad resource name (400), an unknown path (404), the authorizer down (503 with Retry-After)', async () => {
    const badName = '{"code":"bad_request","message":"resource name must be 1-128 letters, digits, dots, dashes or underscores"}';
    await expectAnswer(send(url, 'GET', '/resource/%2e%2e%2fetc', `Bearer ${rick.access_token}`), 400, badName, json(badName));
    const unknown = '{"code":"not_found","message":"no route for GET /nothing-here"}';
    await expectAnswer(send(url, 'GET', '/nothing-here'), 404, unknown, json(unknown));
    const down = '{"code":"authorizer_unavailable","message":"the authorizer is unavailable; try again shortly"}';
    await expectAnswer(send(unavailableUrl, 'DELETE', '/resource/mega-seed', `Bearer ${rick.access_token}`), 503, down, { 'retry-after': '1', ...json(down) });
  });
});
