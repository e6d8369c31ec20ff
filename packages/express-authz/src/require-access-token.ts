import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createTokenVerifier, type AccessTokenVerifierOptions } from './access-token';
import type { AccessTokenClaims } from './check-token-shape';
import { answerOrForward, HttpError, type AnswerOptions } from './errors';
import { getBearerToken } from './get-bearer-token';

/** The verifier's options, and how refusals are answered. */
export type RequireAccessTokenOptions = AccessTokenVerifierOptions & AnswerOptions;

/** Every Authorization header as sent (Node keeps the first in `req.headers`), without building `headersDistinct` per request. */
function authorizationHeaders(req: Request): string[] | undefined {
  let values: string[] | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 13 && raw[i]!.toLowerCase() === 'authorization') (values ??= []).push(raw[i + 1]!);
  }
  return values;
}

/**
 * Admits only requests carrying a valid access token for this API (RFC 6750 bearer usage, RFC
 * 9068 JWT profile) and sets `req.auth` to its frozen claims.
 *
 * express-jwt verifies, through its documented hooks: `getToken` hands it the one bearer token
 * this middleware extracted, `secret` runs the profile check (`typ: at+jwt`, the ID-token
 * refusal) before jwks-rsa's key lookup, and jsonwebtoken's options pin RS256, `iss`, `aud` and
 * the clock. A verified token is cached until `exp`, and a cached one is admitted in the
 * request's own tick. Refusals are JSON with the RFC 6750 challenge (or go to `next(err)` with
 * `forwardErrors`): no token → 401, malformed request → 400, bad token (an ID token too) → 401
 * `invalid_token`, JWKS down → 503.
 *
 * @throws TypeError at creation when an option is invalid.
 */
export function requireAccessToken(options: RequireAccessTokenOptions): RequestHandler {
  const verifier = createTokenVerifier(options, 'requireAccessToken');
  const answer = answerOrForward(options);
  const fail = (err: unknown, res: Response, next: NextFunction) => (err instanceof HttpError ? answer(err, res, next) : next(err));
  const admit = (req: Request, claims: AccessTokenClaims, next: NextFunction) => {
    req.auth = claims;
    next();
  };

  return function requireAccessTokenMiddleware(req, res, next) {
    const now = verifier.nowSeconds();
    let claims: AccessTokenClaims | undefined;
    let token: string;
    try {
      const formEncoded = req.body !== undefined && req.is('application/x-www-form-urlencoded') !== false;
      // A token the cache holds skips the header's pattern scans.
      token = getBearerToken({ authorization: authorizationHeaders(req), query: req.query, body: req.body, formEncoded }, verifier.realm, (t) => (claims = verifier.cache.get(t, now)) !== undefined);
    } catch (err) {
      return fail(err, res, next);
    }
    claims ??= verifier.cache.get(token, now);
    if (claims !== undefined) return admit(req, claims, next);
    void verifier.verify(token, req).then((verified) => admit(req, verified, next), (err: unknown) => fail(err, res, next));
  };
}
