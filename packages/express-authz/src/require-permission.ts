import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AuthorizerUnavailableError, type AuthorizationRequest, type Authorizer } from './authorizer';
import { AUTHZ_ERROR_CODES, authzStatus } from './error-codes';
import { HttpError } from './http-error';
import { answerOrForward, sendError, type AnswerOptions } from './send-error';

/** What a route asks the authorizer: under which policy, the action and how to name the resource. */
export interface PermissionRule {
  /** The policy the route is decided under, e.g. `rbac`; with the action it names the 403 (`rbac.DELETE`). */
  readonly policy: string;
  /** The action, e.g. `DELETE` or `update`. */
  readonly action: string;
  /** The resource the request acts on, read from the request (params, a loaded record…). */
  readonly resource: (req: Request) => AuthorizationRequest['resource'];
}

/** A policy name: lower-case letters, digits, `_` and `-`, at most 64 characters. */
const POLICY_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** 403 in the documented shape `{"code":"forbidden","message":"Forbidden by policy <path>"}`. */
export class ForbiddenError extends HttpError {
  constructor(readonly policyPath: string) {
    super(authzStatus('forbidden'), 'forbidden', `${AUTHZ_ERROR_CODES.forbidden.message} ${policyPath}`);
  }
}

/**
 * The error for whatever went wrong in the permission step: an `HttpError` as it is (a 503 the
 * authorizer raised, a 4xx a resource callback chose), anything else — a TypeError, a string,
 * `undefined` — as 503 `authorizer_unavailable` carrying it as `cause`, for the log only.
 */
function failClosed(thrown: unknown, policyPath: string): HttpError {
  if (thrown instanceof HttpError) return thrown;
  const name = thrown instanceof Error ? thrown.name : typeof thrown;
  const error = new AuthorizerUnavailableError(`${name} while deciding ${policyPath}`);
  error.cause = thrown;
  return error;
}

/**
 * Authorization middleware for one route, after {@link requireAccessToken}: the principal is
 * the token's `sub`; what that user may do is the policy's business, never the token's. Only
 * a literal `true` from the authorizer allows. A deny is 403 JSON naming the policy path. If
 * anything in this step fails — the authorizer cannot answer or throws, the route's resource
 * callback throws — the answer is 503 (never a 500, never an allow).
 *
 * An authorizer that decides in-process (`authorizeNow`) is asked synchronously: no promise
 * per request. The 403 is built once per route and written directly, not thrown: a deny is an
 * answer, not a failure.
 */
export function requirePermission(authorizer: Authorizer, rule: PermissionRule, options: AnswerOptions = {}): RequestHandler {
  if (!POLICY_NAME.test(rule.policy)) throw new TypeError(`invalid policy name: ${rule.policy}`);
  const policyPath = `${rule.policy}.${rule.action}`;
  const forbidden = new ForbiddenError(policyPath);
  const fail = answerOrForward(options);

  function question(req: Request): AuthorizationRequest {
    const principal = (req as { auth?: { sub?: unknown } }).auth?.sub;
    if (typeof principal !== 'string' || principal === '') {
      // Only reachable when a route forgot the access-token middleware.
      throw new Error('requirePermission needs an authenticated request (req.auth.sub)');
    }
    const requestId = (req as { id?: unknown }).id;
    return { principal, action: rule.action, resource: rule.resource(req), policyPath, ...(typeof requestId === 'string' ? { requestId } : {}) };
  }

  // Only a literal `true` allows: "yes" or 1 from a plugged-in authorizer is a deny.
  const answer = (allowed: unknown, res: Response, next: NextFunction): void => {
    if (allowed !== true) sendError(res, forbidden);
    else next();
  };

  const authorizeNow = authorizer.authorizeNow?.bind(authorizer);
  if (authorizeNow !== undefined) {
    return function requirePermissionNow(req, res, next) {
      let allowed: unknown;
      try {
        ({ allowed } = authorizeNow(question(req)));
      } catch (err) {
        fail(failClosed(err, policyPath), req, res, next);
        return;
      }
      answer(allowed, res, next);
    };
  }
  return async function requirePermissionMiddleware(req, res, next) {
    let allowed: unknown;
    try {
      ({ allowed } = await authorizer.authorize(question(req)));
    } catch (err) {
      fail(failClosed(err, policyPath), req, res, next);
      return;
    }
    answer(allowed, res, next);
  };
}
