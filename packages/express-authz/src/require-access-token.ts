import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { expressjwt, type Params } from 'express-jwt';
import { createAccessTokenVerifier } from './create-access-token-verifier';
import type { AccessTokenVerifierOptions } from './verifier-options';
import { InvalidTokenError } from './bearer-errors';
import type { AccessTokenVerifier } from './create-access-token-verifier';
import { getBearerToken, type BearerRequest } from './get-bearer-token';
import { answerOrForward, type AnswerOptions } from './send-error';
import { HttpError } from './http-error';
import './access-token-claims';

/** What express-jwt passes to `next(err)` for a token jsonwebtoken refused: a `code`, and jsonwebtoken's error as `inner`. */
function isExpressJwtError(err: unknown): err is { name: 'UnauthorizedError'; code: string; inner?: unknown } {
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'UnauthorizedError' && typeof (err as { code?: unknown }).code === 'string';
}

/**
 * express-jwt's failure as our typed error: jsonwebtoken's error inside goes through the core's
 * own mapping, by class name, never by message text. Our own errors (the key lookup's) pass
 * through; anything else is returned unchanged and becomes a 500. (express-jwt parses no header
 * here — it gets the token this middleware extracted — so its header codes never occur.)
 */
function translateVerifyError(err: unknown, core: AccessTokenVerifier): unknown {
  if (err instanceof HttpError || !isExpressJwtError(err)) return err;
  const inner = core.translateError(err.inner);
  return inner instanceof HttpError ? inner : new InvalidTokenError('the token signature or claims are invalid', core.options.realm);
}

/** Options of {@link requireAccessToken}: those of the verification core, and how refusals are answered. */
export type RequireAccessTokenOptions = AccessTokenVerifierOptions & AnswerOptions;

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
 * express-jwt verifies, with the verification core's pieces in its documented hooks: the
 * bearer extraction as `getToken`, the RFC 9068 profile check (`typ: at+jwt`, the ID-token
 * refusal) and then the JWKS key lookup (jwks-rsa) as `secret`, the core's jsonwebtoken
 * options; a verified token's frozen claims are cached until `exp`, and a cached token skips
 * express-jwt. Refusals are JSON with the RFC 6750 challenge (`forwardErrors` passes them to
 * `next(err)` instead): no token → 401 bare challenge, malformed request → 400
 * `invalid_request`, bad token (an ID token too) → 401 `invalid_token`, JWKS unreachable → 503.
 *
 * @throws TypeError at creation when an option is invalid.
 */
export function requireAccessToken(options: RequireAccessTokenOptions): RequestHandler {
  const core = createAccessTokenVerifier(options, 'requireAccessToken');
  const { realm, now } = core.options;
  const nowSeconds = () => Math.floor(now() / 1000);
  // The token this middleware already extracted, handed to express-jwt: the header is parsed once.
  const extracted = new WeakMap<Request, string>();
  const params: Params = {
    ...core.jwtOptions,
    algorithms: ['RS256'], // the core's pin, restated because express-jwt's type requires it
    secret: (_req, token) => core.getKey(token),
    getToken: (req) => extracted.get(req),
    requestProperty: 'auth',
  };
  // jsonwebtoken reads `clockTimestamp` once per verify call; a getter keeps the core's clock.
  Object.defineProperty(params, 'clockTimestamp', { enumerable: true, get: nowSeconds });
  const verifyJwt = expressjwt(params);
  const answer = answerOrForward(options);
  const fail = (err: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (err instanceof HttpError) answer(err, req, res, next);
    else next(err); // not a refusal but a bug: the app's error handling answers 500
  };

  return function requireAccessTokenMiddleware(req, res, next) {
    let token: string;
    let cached: ReturnType<typeof core.cache.get>;
    const now = nowSeconds();
    // A token the cache holds skips the header's pattern scans (getBearerToken's `known`).
    const known = (candidate: string): boolean => (cached = core.cache.get(candidate, now)) !== undefined;
    try {
      token = getBearerToken(bearerRequestOf(req), realm, known);
    } catch (err) {
      fail(err, req, res, next);
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
      fail(err, req, res, next);
      return;
    }
    delete req.auth; // only express-jwt may set it from here on
    extracted.set(req, token);
    void verifyJwt(req, res, (err?: unknown) => {
      if (err !== undefined) {
        fail(translateVerifyError(err, core), req, res, next);
        return;
      }
      // express-jwt lets CORS preflights through unverified; without claims, fail closed.
      if (req.auth === undefined) {
        fail(new InvalidTokenError('the token could not be verified', realm), req, res, next);
        return;
      }
      const claims = core.acceptClaims(req.auth);
      req.auth = claims;
      core.cache.set(token, claims);
      next();
    });
  };
}
