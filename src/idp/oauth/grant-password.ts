import { OAuthError } from '../../http';
import { INVALID_CREDENTIALS, overloaded } from '../token-endpoint';
import { invalidGrant, type GrantHandler } from './token-grant';

/**
 * `grant_type=password` (RFC 6749 §4.3), form-encoded, for scripts and demos: the same
 * throttled check as the JSON form, but errors per RFC 6749 §5.2 (400 `invalid_grant`).
 * No refresh token: a script that needs a new token asks again. `client_id` is optional
 * and, when given, must be the demo client or a registered one.
 */
export const passwordGrant: GrantHandler = async function passwordGrant({ params, requestId, address }, deps) {
  const clientId = params.optional('client_id') ?? deps.demoClientId;
  if (clientId !== deps.demoClientId && !deps.clients.find(clientId)) {
    throw new OAuthError(401, 'invalid_client', 'unknown client_id');
  }
  const username = params.required('username');
  const password = params.required('password');
  if (username.length > 256 || password.length > 1024) throw new OAuthError(400, 'invalid_request', 'username or password is too long');

  const check = await deps.checkPassword(username, password, address);
  if (check.outcome === 'throttled') {
    deps.logger.warn({ req_id: requestId }, 'sign-in throttled');
    throw new OAuthError(429, 'too_many_requests', `too many failed sign-in attempts; try again in ${check.retryAfter} seconds`, {
      'Retry-After': String(check.retryAfter),
    });
  }
  if (check.outcome === 'overloaded') {
    deps.logger.warn({ req_id: requestId }, 'sign-in shed');
    throw overloaded(check.retryAfter);
  }
  if (check.outcome === 'invalid') {
    deps.logger.info({ req_id: requestId }, 'sign-in failed');
    throw invalidGrant(INVALID_CREDENTIALS);
  }
  const tokens = await deps.issueTokens(check.user, { clientId });
  deps.logger.info({ req_id: requestId, sub: check.user.id }, 'tokens issued');
  return { ...tokens };
};
