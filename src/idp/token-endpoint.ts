import { Router, type RequestHandler } from 'express';
import { oauthError, jsonBody, type OAuthError } from '../http';
import type { Logger } from '../observability';
import type { CheckPassword } from './check-password';
import type { IssueTokens } from './issue-tokens';
import { readCredentials } from './read-credentials';

/** Path of the token endpoint (the seed contract: docs/service-interface.md §4.1). */
export const TOKEN_PATH = '/api/v1/idp/token';

/** Request bodies above this size are refused before parsing. */
const BODY_LIMIT = 4 * 1024;

export interface TokenEndpointDeps {
  readonly checkPassword: CheckPassword;
  readonly issueTokens: IssueTokens;
  readonly logger: Logger;
}

/** One message for unknown user and wrong password, so the answer cannot enumerate users. */
export const INVALID_CREDENTIALS = 'the username or password is incorrect';

/** 503 for a sign-in shed because the hashing queue is full (RFC 6749 §5.2 shape). */
export function overloaded(retryAfter: number): OAuthError {
  return oauthError('temporarily_unavailable', 'the sign-in service is busy; try again shortly', { headers: { 'Retry-After': String(retryAfter) } });
}

/** 415 for anything but JSON; a request without a body falls through to the 400 body check. */
const requireJson: RequestHandler = function requireJson(req, _res, next) {
  if (req.is('application/json') === false) {
    throw oauthError('invalid_request', 'the request body must be application/json', { status: 415 });
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
  const { checkPassword, issueTokens, logger } = deps;
  const router = Router();

  // Form-encoded requests are the provider's token endpoint (the code, refresh, password and client-credentials grants).
  router.post(TOKEN_PATH, function formsToProvider(req, _res, next) {
    next(req.is('application/x-www-form-urlencoded') ? 'router' : undefined);
  });
  router.post(TOKEN_PATH, noStore, requireJson, jsonBody(BODY_LIMIT), async function token(req, res) {
    const { username, password } = readCredentials(req.body);
    const check = await checkPassword(username, password, req.socket.remoteAddress);
    if (check.outcome === 'throttled') {
      logger.warn({ req_id: req.id }, 'sign-in throttled');
      const retryAfter = { 'Retry-After': String(check.retryAfter) };
      throw oauthError('too_many_requests', `too many failed sign-in attempts; try again in ${check.retryAfter} seconds`, { headers: retryAfter });
    }
    if (check.outcome === 'overloaded') {
      logger.warn({ req_id: req.id }, 'sign-in shed');
      throw overloaded(check.retryAfter);
    }
    if (check.outcome === 'invalid') {
      logger.info({ req_id: req.id }, 'sign-in failed');
      throw oauthError('invalid_grant', INVALID_CREDENTIALS);
    }
    const { user } = check;
    const tokens = await issueTokens(user);
    logger.info({ req_id: req.id, sub: user.id }, 'tokens issued');
    res.json(tokens);
  });

  router.all(TOKEN_PATH, function methodNotAllowed() {
    throw oauthError('invalid_request', 'use POST for the token endpoint', { status: 405, headers: { Allow: 'POST' } });
  });
  return router;
}
