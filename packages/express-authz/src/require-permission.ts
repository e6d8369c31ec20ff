import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AuthorizationRequest, Authorizer } from './authorizer';
import { answerOrForward, AUTHZ_ERROR_CODES, AuthorizerUnavailableError, DEFAULT_REALM, HttpError, InsufficientScopeError, sendError, type AnswerOptions } from './errors';

/** What a route asks: under which policy (with the action it names the 403: `rbac.DELETE`), the action, and its resource. */
export interface PermissionRule {
  readonly policy: string;
  readonly action: string;
  /** The resource the request acts on, read from the request (params, a loaded record…). */
  readonly resource: (req: Request) => AuthorizationRequest['resource'];
}

/** 403 `{"code":"forbidden","message":"Forbidden by policy <path>"}`. */
export class ForbiddenError extends HttpError {
  constructor(readonly policyPath: string) {
    super(AUTHZ_ERROR_CODES.forbidden.status, 'forbidden', `${AUTHZ_ERROR_CODES.forbidden.message} ${policyPath}`);
  }
}

/**
 * Authorization of one route, after `requireAccessToken`: the principal is the token's `sub`;
 * what that user may do is the policy's business, never the token's. Only a literal `true`
 * allows; a deny is 403 naming the policy path, written directly (an answer, not a failure). If
 * anything in this step throws — the authorizer, the route's resource callback — the answer is
 * 503 (never a 500, never an allow); an `HttpError` thrown (the authorizer's 503, a callback's
 * 400) is kept. An authorizer that decides in-process (`authorizeNow`) is asked synchronously:
 * no promise per request.
 */
export function requirePermission(authorizer: Authorizer, rule: PermissionRule, options: AnswerOptions = {}): RequestHandler {
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(rule.policy)) throw new TypeError(`invalid policy name: ${rule.policy}`);
  const policyPath = `${rule.policy}.${rule.action}`;
  const forbidden = new ForbiddenError(policyPath);
  const answer = answerOrForward(options);

  function question(req: Request): AuthorizationRequest {
    const principal = req.auth?.sub as unknown;
    // Only when a route forgot the access-token middleware.
    if (typeof principal !== 'string' || principal === '') throw new Error('requirePermission needs an authenticated request (req.auth.sub)');
    const requestId = (req as { id?: unknown }).id;
    return { principal, action: rule.action, resource: rule.resource(req), policyPath, ...(typeof requestId === 'string' ? { requestId } : {}) };
  }

  const decided = (allowed: unknown, res: Response, next: NextFunction) => (allowed === true ? next() : sendError(res, forbidden));
  const failed = (thrown: unknown, res: Response, next: NextFunction) => {
    if (thrown instanceof HttpError) return answer(thrown, res, next);
    const error = new AuthorizerUnavailableError(`${thrown instanceof Error ? thrown.name : typeof thrown} while deciding ${policyPath}`);
    error.cause = thrown; // for the log only
    answer(error, res, next);
  };

  const authorizeNow = authorizer.authorizeNow?.bind(authorizer);
  if (authorizeNow !== undefined) {
    return function requirePermissionNow(req, res, next) {
      let allowed: unknown;
      try {
        ({ allowed } = authorizeNow(question(req)));
      } catch (err) {
        return failed(err, res, next);
      }
      decided(allowed, res, next);
    };
  }
  return async function requirePermissionMiddleware(req, res, next) {
    let allowed: unknown;
    try {
      ({ allowed } = await authorizer.authorize(question(req)));
    } catch (err) {
      return failed(err, res, next);
    }
    decided(allowed, res, next);
  };
}

/**
 * A scope check for a route a machine client calls: the token's `scope` (RFC 9068 §2.2.3) must
 * hold `scope`, or 403 `insufficient_scope` with the challenge naming it. A scope says what a
 * client was granted, not what a user may do: decide users' requests with `requirePermission`.
 */
export function requireScope(scope: string, options: AnswerOptions & { readonly realm?: string } = {}): RequestHandler {
  if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) throw new TypeError(`invalid scope: ${scope}`); // RFC 6749 §3.3
  const answer = answerOrForward(options);
  const refusal = new InsufficientScopeError(scope, options.realm ?? DEFAULT_REALM);
  return function requireScopeMiddleware(req, res, next) {
    const granted = req.auth?.scope as unknown;
    if (typeof granted === 'string' && granted.split(' ').includes(scope)) next();
    else answer(refusal, res, next);
  };
}
