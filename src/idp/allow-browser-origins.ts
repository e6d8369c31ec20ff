import type { RequestHandler } from 'express';

/**
 * CORS for the IdP, so the todo page (another origin) can sign in and read the JWKS.
 * Only the configured origins, compared exactly, get `Access-Control-Allow-Origin`; no
 * credentials mode (the endpoint takes no cookies). Preflights are answered here with 204.
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
        'Access-Control-Allow-Headers': 'Content-Type',
        'Access-Control-Max-Age': '600',
      });
      res.status(204).end();
      return;
    }
    next();
  };
}
