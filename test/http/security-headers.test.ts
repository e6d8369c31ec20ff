/**
 * helmet's headers computed once at start-up must be helmet's headers: each set of options
 * the apps use is answered by helmet itself (run per request, as createApp did before) and by
 * the precomputed set, over HTTP and over HTTPS, and the full header lists must match.
 */
import express, { type RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';
import request from 'supertest';
import { contentSecurityPolicy } from '../../src/http';
import { securityHeaders } from '../../src/http/security-headers';

/** Headers that differ per request or come from Express rather than helmet. */
const NOT_HELMETS = new Set(['date', 'connection', 'keep-alive', 'content-length', 'content-type', 'etag']);

/** An app answering `GET /` after `headers`, behind a proxy that says whether the request came over HTTPS. */
function appWith(headers: RequestHandler): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', true);
  app.use(headers);
  app.get('/', (_req, res) => void res.send('ok'));
  return app;
}

/** The header lines an app sends, sorted, helmet's only. */
async function headerLines(app: express.Express, proto: 'http' | 'https'): Promise<string[]> {
  const res = await request(app).get('/').set('X-Forwarded-Proto', proto);
  expect(res.status).toBe(200);
  // Node joins a repeated header's values, so a duplicate shows as a changed value.
  return Object.entries(res.headers as Record<string, string>)
    .filter(([name]) => !NOT_HELMETS.has(name))
    .map(([name, value]) => `${name}: ${value}`)
    .sort();
}

/** helmet per request, as createApp ran it: its CSP through contentSecurityPolicy. */
function helmetPerRequest(options: HelmetOptions): RequestHandler {
  const { contentSecurityPolicy: csp, ...rest } = options;
  const own = helmet({ ...rest, contentSecurityPolicy: false });
  const policy = csp === false ? undefined : contentSecurityPolicy(typeof csp === 'object' ? csp.directives : undefined);
  return (req, res, next) => own(req, res, () => (policy ? policy(req, res, next) : next()));
}

const OPTIONS: [string, HelmetOptions][] = [
  ['the defaults (RBAC app, IdP, control plane, sidecar)', {}],
  ['a page’s connect-src (todo app)', { contentSecurityPolicy: { directives: { connectSrc: ["'self'", 'http://idp.example:5556'] } } }],
  ['no CSP, no HSTS', { contentSecurityPolicy: false, strictTransportSecurity: false }],
];

describe('securityHeaders', () => {
  it.each(OPTIONS)('sends exactly helmet’s headers for %s, over HTTP and over HTTPS', async (_name, options) => {
    const precomputed = securityHeaders(options);
    const once = appWith((req, res, next) => {
      precomputed(req, res);
      next();
    });
    const perRequest = appWith(helmetPerRequest(options));
    for (const proto of ['http', 'https'] as const) {
      const expected = await headerLines(perRequest, proto);
      expect(expected.length).toBeGreaterThan(8);
      expect(await headerLines(once, proto)).toEqual(expected);
    }
  });

  it('sends upgrade-insecure-requests over HTTPS only', async () => {
    const precomputed = securityHeaders();
    const app = appWith((req, res, next) => {
      precomputed(req, res);
      next();
    });
    const csp = async (proto: 'http' | 'https') => (await headerLines(app, proto)).find((l) => l.startsWith('content-security-policy:'));
    expect(await csp('https')).toContain('upgrade-insecure-requests');
    expect(await csp('http')).not.toContain('upgrade-insecure-requests');
  });

  it('refuses at start-up a CSP directive computed per request, which no precomputed header can honour', () => {
    const nonce = () => "'nonce-abc'";
    expect(() => securityHeaders({ contentSecurityPolicy: { directives: { scriptSrc: ["'self'", nonce] } } })).toThrow(
      new TypeError('CSP directive scriptSrc is computed per request; the security headers are computed once'),
    );
    expect(() => securityHeaders({ contentSecurityPolicy: { directives: { scriptSrc: nonce as never } } })).toThrow(TypeError);
  });
});
