import type { RequestHandler } from 'express';
import { DEFAULT_REALM, InsufficientScopeError } from './bearer-errors';
import { answerOrForward, type AnswerOptions } from './send-error';

/** One scope token as RFC 6749 §3.3 defines it: printable ASCII without spaces, `"` or `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Scope middleware for a route a machine calls. Runs after the access-token middleware and
 * admits a token whose `scope` claim (space-separated, RFC 9068 §2.2.3) contains `scope`;
 * any other is 403 `insufficient_scope` with the RFC 6750 §3.1 challenge naming it.
 *
 * A scope says what a *client* was granted, not what a *user* may do: decide users' requests
 * with `requirePermission`, and check a scope on routes no user calls (a machine client's
 * `client_credentials` token).
 */
export function requireScope(scope: string, options: AnswerOptions & { readonly realm?: string } = {}): RequestHandler {
  if (!SCOPE_TOKEN.test(scope)) throw new TypeError(`invalid scope: ${scope}`);
  const fail = answerOrForward(options);
  const refusal = new InsufficientScopeError(scope, options.realm ?? DEFAULT_REALM);
  return function requireScopeMiddleware(req, res, next) {
    const granted = (req as { auth?: { scope?: unknown } }).auth?.scope;
    if (typeof granted === 'string' && granted.split(' ').includes(scope)) next();
    else fail(refusal, req, res, next);
  };
}
