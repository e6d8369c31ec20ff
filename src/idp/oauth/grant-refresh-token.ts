import { OAuthError } from '../../http';
import { invalidGrant, requireClient, type GrantHandler } from './token-grant';

/**
 * `grant_type=refresh_token` (RFC 6749 §6) with rotation (RFC 9700 §4.14.2): each refresh
 * token works once and is replaced; presenting a spent one means it leaked, so the whole
 * family is revoked and the user signs in again. `scope` may narrow, never widen.
 */
export const refreshTokenGrant: GrantHandler = async function refreshTokenGrant({ params, requestId }, deps) {
  const client = requireClient(params, deps);
  const rotated = deps.grants.rotate(params.required('refresh_token'), client.clientId);
  if (!rotated.ok) {
    if (rotated.replayed) deps.logger.warn({ req_id: requestId, client_id: client.clientId }, 'refresh token reused; family revoked');
    throw invalidGrant(rotated.replayed ? 'the refresh token was already used; its family is revoked' : 'the refresh token is unknown, expired or revoked');
  }
  const grant = rotated.record;
  const granted = grant.scope.split(' ');
  const asked = params.optional('scope')?.split(' ').filter(Boolean) ?? granted;
  const wider = asked.find((s) => !granted.includes(s));
  if (wider) throw new OAuthError(400, 'invalid_scope', `scope ${wider} was not granted`);
  const scope = asked.join(' ');

  const tokens = await deps.issueTokens(grant.user, { clientId: grant.clientId, scope, authTime: grant.authTime });
  return { ...tokens, refresh_token: rotated.next, scope };
};
