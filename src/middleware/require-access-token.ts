import type { Request, RequestHandler } from 'express';
import { expressjwt, type Params } from 'express-jwt';
import { createAccessTokenVerifier, type AccessTokenVerifierOptions } from '../access-token';
import { getBearerToken, InvalidTokenError, type BearerRequest } from '../oauth2-bearer';
import { translateVerifyError } from './translate-verify-error';
import './access-token-claims';

/** Options of {@link requireAccessToken}: those of the verification core. */
export type RequireAccessTokenOptions = AccessTokenVerifierOptions;

/**
 * Every `Authorization` header value as sent. Node keeps only the first in `req.headers`;
 * scanning `rawHeaders` finds duplicates without building `headersDistinct` for every
 * header on every request.
 */
function authorizationHeaders(req: Request): string[] | undefined {
  let values: string[] | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') (values ??= []).push(raw[i + 1]!);
  }
  return values;
}

/** The framework-neutral view of an Express request that the bearer layer reads. */
function bearerRequestOf(req: Request): BearerRequest {
  return {
    authorization: authorizationHeaders(req),
    query: req.query,
    body: req.body,
    formEncoded: req.body !== undefined && req.is('application/x-www-form-urlencoded') !== false,
  };
}

/**
 * Express middleware that admits only requests carrying a valid access token for this API
 * (RFC 6750 bearer usage, RFC 9068 JWT profile) and sets `req.auth` to its claims.
 *
 * A thin adapter over the verification core (src/access-token), which express-jwt runs:
 * the core's strict shape check before it, the core's profile check and key lookup as its
 * `secret`, the core's jsonwebtoken options, then the core's frozen claims and cache.
 * Failures are thrown as typed errors for the app's error middleware: no token → 401 bare
 * challenge, malformed request → 400 `invalid_request`, bad token (including an ID token)
 * → 401 `invalid_token`, JWKS unreachable → 503. Verified tokens are cached until `exp`.
 *
 * @throws TypeError at creation when an option is invalid.
 */
export function requireAccessToken(options: RequireAccessTokenOptions): RequestHandler {
  const core = createAccessTokenVerifier(options, 'requireAccessToken');
  const { realm, now } = core.options;
  const nowSeconds = () => Math.floor(now() / 1000);
  const params: Params = {
    ...core.jwtOptions,
    algorithms: ['RS256'], // the core's pin, restated because express-jwt's type requires it
    secret: (_req, token) => core.getKey(token),
    getToken: (req) => getBearerToken(bearerRequestOf(req), realm),
    requestProperty: 'auth',
  };
  // jsonwebtoken reads `clockTimestamp` once per verify call; a getter keeps the core's clock.
  Object.defineProperty(params, 'clockTimestamp', { enumerable: true, get: nowSeconds });
  const verifyJwt = expressjwt(params);

  return function requireAccessTokenMiddleware(req, res, next) {
    let token: string;
    let cached: ReturnType<typeof core.cache.get>;
    const now = nowSeconds();
    // A token the cache holds skips the header's pattern scans (getBearerToken's `known`).
    const known = (candidate: string): boolean => (cached = core.cache.get(candidate, now)) !== undefined;
    try {
      token = getBearerToken(bearerRequestOf(req), realm, known);
    } catch (err) {
      next(err);
      return;
    }
    cached ??= core.cache.get(token, now);
    if (cached) {
      req.auth = cached;
      next();
      return;
    }
    try {
      core.checkCompact(token);
    } catch (err) {
      next(err);
      return;
    }
    delete req.auth; // only express-jwt may set it from here on
    void verifyJwt(req, res, (err?: unknown) => {
      if (err !== undefined) {
        next(translateVerifyError(err, core));
        return;
      }
      // express-jwt lets CORS preflights through unverified; without claims, fail closed.
      if (req.auth === undefined) {
        next(new InvalidTokenError('the token could not be verified', realm));
        return;
      }
      const claims = core.acceptClaims(req.auth);
      req.auth = claims;
      core.cache.set(token, claims);
      next();
    });
  };
}
