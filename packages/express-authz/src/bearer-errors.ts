/**
 * Bearer-token errors of RFC 6750 §3.1, each carrying its status, OAuth error code and
 * challenge header. Thrown by the bearer layer; the app's one error middleware renders them
 * as `{error, error_description}` bodies.
 */
import { AUTHZ_ERROR_CODES, authzStatus } from './error-codes';
import { OAuthError } from './http-error';
import { buildBearerChallenge } from './www-authenticate';

/** The realm used when a caller does not name one. */
export const DEFAULT_REALM = 'outpost';

/**
 * 401 for a request with no bearer credentials at all. RFC 6750 §3.1: the challenge then
 * carries no error code, only the realm, telling the client which scheme to use.
 */
export class UnauthorizedError extends OAuthError {
  constructor(message: string = AUTHZ_ERROR_CODES.unauthorized.message, realm = DEFAULT_REALM) {
    super(authzStatus('unauthorized'), 'unauthorized', message, { 'WWW-Authenticate': buildBearerChallenge({ realm }) });
  }
}

/**
 * 400 `invalid_request`: a malformed Authorization header, or a token sent more than one
 * way (RFC 6750 §3.1).
 */
export class InvalidRequestError extends OAuthError {
  constructor(message: string, realm = DEFAULT_REALM) {
    super(authzStatus('invalid_request'), 'invalid_request', message, {
      'WWW-Authenticate': buildBearerChallenge({ realm, error: 'invalid_request', error_description: message }),
    });
  }
}

/**
 * 401 `invalid_token`: the token is expired, malformed, badly signed, of the wrong type or
 * meant for someone else (RFC 6750 §3.1). The description is short and never echoes the token.
 */
export class InvalidTokenError extends OAuthError {
  constructor(message: string, realm = DEFAULT_REALM) {
    super(authzStatus('invalid_token'), 'invalid_token', message, {
      'WWW-Authenticate': buildBearerChallenge({ realm, error: 'invalid_token', error_description: message }),
    });
  }
}

/**
 * 503 `temporarily_unavailable` (the RFC 6749 §4.1.2.1 code): the keys needed to check a
 * token could not be fetched. Our fault, not the caller's, so never a 401 — and never an allow.
 */
export class TemporarilyUnavailableError extends OAuthError {
  constructor(message: string = AUTHZ_ERROR_CODES.temporarily_unavailable.message) {
    super(authzStatus('temporarily_unavailable'), 'temporarily_unavailable', message, { 'Retry-After': '5' });
  }
}

/**
 * 403 `insufficient_scope`: the token is good but was not granted the scope the route needs
 * (RFC 6750 §3.1); the challenge names that scope, so the client knows what to ask for.
 */
export class InsufficientScopeError extends OAuthError {
  constructor(scope: string, realm = DEFAULT_REALM) {
    const message = `the access token lacks the ${scope} scope`;
    super(authzStatus('insufficient_scope'), 'insufficient_scope', message, {
      'WWW-Authenticate': buildBearerChallenge({ realm, error: 'insufficient_scope', error_description: message, scope }),
    });
  }
}
