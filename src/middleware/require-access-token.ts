import type { Request, RequestHandler } from 'express';
import { expressjwt, type Params } from 'express-jwt';
import { getBearerToken, InvalidTokenError, type BearerRequest } from '../oauth2-bearer';
import { resolveAccessTokenOptions, type RequireAccessTokenOptions } from './access-token-options';
import { checkTokenShape } from './check-token-shape';
import { createJwksKeyStore } from './jwks-key-store';
import { translateVerifyError } from './translate-verify-error';
import { createVerifiedTokenCache } from './verified-token-cache';
import './access-token-claims';

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

/** Claims are shared by every request that presents the same token, so none may change them. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/**
 * Express middleware that admits only requests carrying a valid access token for this API
 * (RFC 6750 bearer usage, RFC 9068 JWT profile) and sets `req.auth` to its claims.
 *
 * Verification is express-jwt with RS256 pinned, exact issuer, required audience, a small
 * clock tolerance and `typ` `at+jwt`; the key comes from the IdP's JWKS by `kid` only.
 * Failures are thrown as typed errors for the app's error middleware: no token → 401 bare
 * challenge, malformed request → 400 `invalid_request`, bad token (including an ID token)
 * → 401 `invalid_token`, JWKS unreachable → 503. Verified tokens are cached until `exp`.
 *
 * @throws TypeError at creation when an option is invalid.
 */
export function requireAccessToken(options: RequireAccessTokenOptions): RequestHandler {
  const opts = resolveAccessTokenOptions(options);
  const { realm, now } = opts;
  const nowSeconds = () => Math.floor(now() / 1000);
  const keys = createJwksKeyStore({
    jwksUri: opts.jwksUri,
    cooldownMs: opts.jwksCooldownMs,
    timeoutMs: opts.jwksTimeoutMs,
    realm,
    now,
  });
  const cache = createVerifiedTokenCache(opts.tokenCacheSize, opts.clockTolerance);
  const expected = { issuer: opts.issuer, audience: opts.audience, clientId: opts.clientId, realm };

  const params: Params = {
    // Shape checks first, so hopeless tokens never cause a JWKS fetch.
    secret: (_req, token) => keys.getKey(checkTokenShape(token, expected)),
    getToken: (req) => getBearerToken(bearerRequestOf(req), realm),
    algorithms: ['RS256'],
    issuer: opts.issuer,
    audience: opts.audience,
    clockTolerance: opts.clockTolerance,
    requestProperty: 'auth',
  };
  // jsonwebtoken reads `clockTimestamp` once per verify call; a getter makes it use our clock.
  Object.defineProperty(params, 'clockTimestamp', { enumerable: true, get: nowSeconds });
  const verifyJwt = expressjwt(params);

  return function requireAccessTokenMiddleware(req, res, next) {
    let token: string;
    try {
      token = getBearerToken(bearerRequestOf(req), realm);
    } catch (err) {
      next(err);
      return;
    }
    const cached = cache.get(token, nowSeconds());
    if (cached) {
      req.auth = cached;
      next();
      return;
    }
    delete req.auth; // only express-jwt may set it from here on
    void verifyJwt(req, res, (err?: unknown) => {
      if (err !== undefined) {
        next(translateVerifyError(err, realm));
        return;
      }
      // express-jwt lets CORS preflights through unverified; without claims, fail closed.
      if (req.auth === undefined) {
        next(new InvalidTokenError('the token could not be verified', realm));
        return;
      }
      const claims = deepFreeze({ ...req.auth });
      req.auth = claims;
      cache.set(token, claims);
      next();
    });
  };
}
