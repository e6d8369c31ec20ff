import type { RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/** CSP directives as helmet takes them (`connectSrc: ["'self'", …]`), on top of its defaults. */
export type CspDirectives = NonNullable<Exclude<HelmetOptions['contentSecurityPolicy'], boolean | undefined>['directives']>;

/**
 * Helmet's Content-Security-Policy (its defaults plus `directives`), with
 * `upgrade-insecure-requests` only when the request came over HTTPS (`req.secure`). Helmet
 * sends that directive by default, and a browser obeying it asks for every script and style
 * over https: harmless on https and on localhost (which browsers exempt), but a page served
 * over plain http from any other host (`http://192.168.1.20:8585/console/`) then loads none of
 * its modules and cannot even sign in. Everything else in the policy is the same either way.
 */
export function contentSecurityPolicy(directives: CspDirectives = {}): RequestHandler {
  const overHttps = helmet.contentSecurityPolicy({ directives });
  const overHttp = helmet.contentSecurityPolicy({ directives: { ...directives, upgradeInsecureRequests: null } });
  return function contentSecurityPolicyMiddleware(req, res, next) {
    (req.secure ? overHttps : overHttp)(req, res, next);
  };
}
