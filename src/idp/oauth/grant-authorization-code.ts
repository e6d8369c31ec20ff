import { invalidGrant, requireClient, type GrantHandler } from './token-grant';
import { verifyPkce } from './verify-pkce';

/**
 * `grant_type=authorization_code` (RFC 6749 §4.1.3, RFC 7636 §4.5): the code is spent on
 * first use, must have been issued to this client for this redirect URI, and the verifier
 * must hash to its challenge. A replayed code also revokes the refresh tokens it issued.
 */
export const authorizationCodeGrant: GrantHandler = async function authorizationCodeGrant({ params, requestId }, deps) {
  const client = requireClient(params, deps);
  const code = params.required('code');
  const redirectUri = params.required('redirect_uri');
  const verifier = params.required('code_verifier');

  const redeemed = deps.grants.redeemCode(code);
  if (!redeemed.ok) {
    if (redeemed.replayed) deps.logger.warn({ req_id: requestId, client_id: client.clientId }, 'authorization code replayed; its grant revoked');
    throw invalidGrant(redeemed.replayed ? 'the code was already used; what it issued is revoked' : 'the code is unknown or expired');
  }
  const { record } = redeemed;
  if (record.clientId !== client.clientId) throw invalidGrant('the code was issued to another client');
  if (record.redirectUri !== redirectUri) throw invalidGrant('redirect_uri differs from the authorization request');
  if (!verifyPkce(verifier, record.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge');

  const tokens = await deps.issueTokens(record.user, {
    clientId: record.clientId,
    scope: record.scope,
    authTime: record.authTime,
    ...(record.nonce === undefined ? {} : { nonce: record.nonce }),
  });
  // A refresh token is optional (RFC 6749 §5.1): when the table is full of other users'
  // single families, this client gets none and signs in again once the access token expires.
  const started = deps.grants.startFamily(record);
  if (started) deps.grants.linkCode(code, started.family);
  else deps.logger.warn({ req_id: requestId, client_id: client.clientId }, 'no refresh token: the table of refresh tokens is full');
  deps.logger.info({ req_id: requestId, sub: record.user.id, client_id: client.clientId }, 'tokens issued for a code');
  return { ...tokens, ...(started ? { refresh_token: started.token } : {}), scope: record.scope };
};
