import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpError, sendError } from '../http';
import { thrownName } from '../observability';
import { POLICY_NAME_PATTERN } from '../decision-protocol';
import {
  AuthorizerUnavailableError,
  type AuthorizationRequest,
  type Authorizer,
} from '../authorizer';

/** What a route asks the authorizer: the action and how to name the resource. */
export interface PermissionRule {
  /** Cedar action id, e.g. `DELETE` or `update`. */
  readonly action: string;
  /** The resource the request acts on, read from the request (params, a loaded record…). */
  readonly resource: (req: Request) => AuthorizationRequest['resource'];
}

/** 403 in the documented shape `{"code":"forbidden","message":"Forbidden by policy <path>"}`. */
export class ForbiddenError extends HttpError {
  constructor(readonly policyPath: string) {
    super(403, 'forbidden', `Forbidden by policy ${policyPath}`);
  }
}

/**
 * The error the permission step throws for whatever went wrong in it: an `HttpError` as it
 * is (a 503 the authorizer raised, a 4xx a resource callback chose), anything else — the
 * authorizer or `rule.resource` throwing a TypeError, a string, `undefined` — as 503
 * `authorizer_unavailable` carrying it as `cause`. The error handler logs that cause, stack
 * and all, once per kind per minute; the client reads only the generic message.
 */
function failClosed(thrown: unknown, policyPath: string): HttpError {
  if (thrown instanceof HttpError) return thrown;
  const error = new AuthorizerUnavailableError(`${thrownName(thrown)} while deciding ${policyPath}`);
  error.cause = thrown;
  return error;
}

/**
 * Authorization middleware for one route. Runs after the access-token middleware: the
 * principal is the token's `sub`; what that user may do is the policy's and the
 * directory's business, never the token's. Fails closed: if anything in this step fails —
 * the authorizer cannot answer, or throws; the route's resource callback throws — the
 * request gets 503 (never a 500, never an allow).
 *
 * An authorizer that decides in-process (`authorizeNow`, the embedded edge) is asked
 * synchronously: no promise or microtask per request; any other is awaited. Both paths fail
 * closed the same way and answer the same bytes.
 *
 * A deny is an answer, not a failure: the 403 is built once per route and written here with
 * `sendError`, the error middleware's own writer (same status, headers and body), instead of
 * being thrown through Express's error path; an `Error` with its stack trace and the router's
 * error routing cost a denied request about a fifth of its CPU (`npm run bench:apps`).
 */
export function requirePermission(authorizer: Authorizer, policyName: string, rule: PermissionRule): RequestHandler {
  if (!POLICY_NAME_PATTERN.test(policyName)) throw new TypeError(`invalid policy name: ${policyName}`);
  const policyPath = `${policyName}.${rule.action}`;
  const forbidden = new ForbiddenError(policyPath);

  function question(req: Request): AuthorizationRequest {
    const principal = (req as { auth?: { sub?: unknown } }).auth?.sub;
    if (typeof principal !== 'string' || principal === '') {
      // Only reachable when a route forgot the authentication middleware.
      throw new Error('requirePermission needs an authenticated request (req.auth.sub)');
    }
    return { principal, action: rule.action, resource: rule.resource(req), policyPath, requestId: req.id };
  }

  // Only a literal `true` allows: an authorizer answering anything else (a plugged-in one
  // returning "yes" or 1) is denied, never let through by JavaScript's truthiness.
  const answer: (allowed: unknown, res: Response, next: NextFunction) => void = (allowed, res, next) => {
    if (allowed !== true) sendError(res, forbidden);
    else next();
  };

  const authorizeNow = authorizer.authorizeNow?.bind(authorizer);
  if (authorizeNow !== undefined) {
    // An in-process authorizer (the embedded edge) answers in the request's own tick.
    return function requirePermissionNow(req, res, next) {
      let allowed: unknown;
      try {
        ({ allowed } = authorizeNow(question(req)));
      } catch (err) {
        next(failClosed(err, policyPath));
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
      throw failClosed(err, policyPath);
    }
    answer(allowed, res, next);
  };
}
