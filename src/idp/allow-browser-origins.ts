import type { RequestHandler } from 'express';

/**
 * CORS for the IdP, so the todo page (another origin) can read discovery and the JWKS and
 * call the token, userinfo and revocation endpoints.
 * Only the configured origins, compared exactly, get `Access-Control-Allow-Origin`; no
 * credentials mode (those endpoints take no cookies; the login page is navigated to, not fetched). Preflights are answered here with 204.
 */
export function allowBrowserOrigins(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return function allowBrowserOriginsMiddleware(req, res, next) {
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) {
      next();
      return;
    }
    res.set('Access-Control-Allow-Origin', origin);
    if (req.method === 'OPTIONS' && req.headers['access-control-request-method']) {
      res.set({
        'Access-Control-Allow-Methods': 'GET, POST',
        'Access-Control-Allow-Headers': 'Content-Type, Authorization',
        'Access-Control-Max-Age': '600',
      });
      res.status(204).end();
      return;
    }
    next();
  };
}
