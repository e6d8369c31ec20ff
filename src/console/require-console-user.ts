import type { RequestHandler } from 'express';
import { createAccessTokenVerifier } from '@outpost/express-authz';
import { CONSOLE_CLIENT_ID, CONTROL_PLANE_AUDIENCE } from '../config';
import { HttpError, OAuthError } from '../http';
import { getBearerToken } from '@outpost/express-authz';

/** Where the console's access tokens come from: the IdP's issuer and JWKS. */
export interface ConsoleAuthOptions {
  readonly issuer: string;
  readonly jwksUri: string;
  /** Allowed clock skew in seconds (default 5). */
  readonly clockTolerance?: number;
}

/** Realm of the console API's `WWW-Authenticate` challenges. */
export const CONSOLE_REALM = 'outpost-console';

/** The bearer layer speaks the OAuth error shape; the console API answers `{code, message}` with the same status and challenge. */
function asApiError(err: unknown): unknown {
  return err instanceof OAuthError ? new HttpError(err.status, err.code, err.message, { ...err.headers }) : err;
}

/**
 * Admits only a request carrying an access token the IdP issued to the console: RFC 9068
 * checked by the project's one verifier (packages/express-authz), `aud` the control plane's
 * audience, which the IdP gives to the console client's tokens alone, so a token for the
 * sample API (or an ID token) is a 401. Sets `res.locals.userId` to the token's `sub`.
 *
 * CSRF: the token is read from the `Authorization` header only (never a cookie, the query
 * or a form body), and the console API sets no cookie. A browser attaches that header to no
 * request by itself, so a cross-site page cannot make a signed-in user's browser send a
 * credentialed request; no CSRF token is needed (the console keeps its token in memory).
 */
export function requireConsoleUser(options: ConsoleAuthOptions): RequestHandler {
  const verifier = createAccessTokenVerifier(
    {
      issuer: options.issuer,
      audience: CONTROL_PLANE_AUDIENCE,
      jwksUri: options.jwksUri,
      clientId: CONSOLE_CLIENT_ID,
      realm: CONSOLE_REALM,
      ...(options.clockTolerance === undefined ? {} : { clockTolerance: options.clockTolerance }),
    },
    'requireConsoleUser',
  );
  return async function requireConsoleUserMiddleware(req, res, next) {
    try {
      const token = getBearerToken({ authorization: req.headersDistinct.authorization, query: req.query }, CONSOLE_REALM);
      res.locals.userId = (await verifier.verify(token)).sub;
    } catch (err) {
      throw asApiError(err);
    }
    next();
  };
}

/** The user id set by {@link requireConsoleUser}. */
export function consoleUser(locals: Record<string, unknown>): string {
  const userId = locals.userId;
  if (typeof userId !== 'string') throw new Error('requireConsoleUser must run before this handler');
  return userId;
}
