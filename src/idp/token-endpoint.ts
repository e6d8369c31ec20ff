import express, { Router, type RequestHandler } from 'express';
import { OAuthError } from '../http';
import type { Logger } from '../observability';
import type { TokenResponse } from './issue-tokens';
import { HashingOverloadedError, type HashingLimiter } from './limit-hashing';
import type { LoginThrottle } from './login-throttle';
import { readCredentials } from './read-credentials';
import type { IdpUser, UserStore } from './user-store';

/** Path of the token endpoint (service interface §4.1). */
export const TOKEN_PATH = '/api/v1/idp/token';

/** Request bodies above this size are refused before parsing. */
const BODY_LIMIT = '4kb';

export interface TokenEndpointDeps {
  readonly users: UserStore;
  readonly issueTokens: (user: IdpUser) => Promise<TokenResponse>;
  readonly throttle: LoginThrottle;
  /** Bounds concurrent password checks; excess sign-ins get 503 before any hashing. */
  readonly hashing: HashingLimiter;
  readonly logger: Logger;
}

/** One message for unknown user and wrong password, so the answer cannot enumerate users. */
const INVALID_GRANT = 'the username or password is incorrect';

/** Seconds a client shed for overload should wait: a few scrypt rounds drain the queue. */
const OVERLOAD_RETRY_AFTER = '1';

/** 415 for anything but JSON; a request without a body falls through to the 400 body check. */
const requireJson: RequestHandler = function requireJson(req, _res, next) {
  if (req.is('application/json') === false) {
    throw new OAuthError(415, 'invalid_request', 'the request body must be application/json');
  }
  next();
};

/** RFC 6749 §5.1: responses carrying tokens (and, simply, every answer here) must not be cached. */
const noStore: RequestHandler = function noStore(_req, res, next) {
  res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  next();
};

/**
 * `POST /api/v1/idp/token` with `{username, password}` (the resource-owner password grant,
 * RFC 6749 §4.3, in JSON). Repeated failures per username and per client address are
 * answered with 429 and `Retry-After` before any password work is done; when the bounded
 * hashing queue is full (or the IdP is shutting down) the answer is 503
 * `temporarily_unavailable` with `Retry-After`, in the RFC 6749 §5.2 error shape.
 */
export function tokenEndpoint(deps: TokenEndpointDeps): Router {
  const { users, issueTokens, throttle, hashing, logger } = deps;
  const router = Router();

  router.post(TOKEN_PATH, noStore, requireJson, express.json({ limit: BODY_LIMIT }), async function token(req, res) {
    const { username, password } = readCredentials(req.body);
    const userKey = `user:${username.trim().toLowerCase()}`;
    const keys = [userKey, `addr:${req.socket.remoteAddress ?? 'unknown'}`];

    const wait = throttle.retryAfter(keys);
    if (wait > 0) {
      logger.warn({ req_id: req.id }, 'sign-in throttled');
      throw new OAuthError(429, 'too_many_requests', 'too many failed sign-in attempts; try again later', {
        'Retry-After': String(wait),
      });
    }

    // Every attempt counts as a failure before the slow password check and is forgiven if
    // it succeeds: a burst of parallel guesses is capped by the limit, not by concurrency.
    throttle.recordFailure(keys);
    let user: IdpUser | undefined;
    try {
      user = await hashing.run(() => users.authenticate(username, password));
    } catch (err) {
      if (!(err instanceof HashingOverloadedError)) throw err;
      // Shed before any password was checked: not a failed guess, so it must not count.
      throttle.forgive(keys);
      logger.warn({ req_id: req.id, reason: err.reason }, 'sign-in shed');
      throw new OAuthError(503, 'temporarily_unavailable', 'the sign-in service is busy; try again shortly', {
        'Retry-After': OVERLOAD_RETRY_AFTER,
      });
    }
    if (!user) {
      logger.info({ req_id: req.id }, 'sign-in failed');
      throw new OAuthError(401, 'invalid_grant', INVALID_GRANT);
    }
    throttle.forgive(keys);
    throttle.reset(userKey);
    const tokens = await issueTokens(user);
    logger.info({ req_id: req.id, sub: user.id }, 'tokens issued');
    res.json(tokens);
  });

  router.all(TOKEN_PATH, function methodNotAllowed() {
    throw new OAuthError(405, 'invalid_request', 'use POST for the token endpoint', { Allow: 'POST' });
  });
  return router;
}
