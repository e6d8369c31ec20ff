// Sign-in for the console: OAuth 2.0 authorization code + PKCE (RFC 6749 §4.1, RFC 7636) as
// the public client `outpost-console`, with oauth4webapi served from this origin. The IdP
// redirects to /console/callback, which serves this same page; the code exchange happens
// there. Tokens live in this module's memory only (a reload signs in again, one click while
// the IdP session lasts); only the PKCE verifier, state and nonce survive the redirect, in
// sessionStorage, deleted as soon as the callback is handled.
import * as oauth from '/console/vendor/oauth4webapi.js';

const PENDING = 'outpost-console-pending-sign-in';
const HOME = '/console/';
const config = await (await fetch('/console/config.json')).json();
const issuer = new URL(config.auth_url);
// The demo IdP runs on http://localhost; oauth4webapi refuses plain http unless told.
const http = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, http));
const client = { client_id: config.client_id };
const redirectUri = `${location.origin}/console/callback`;
let tokens = null;

/** Sends the browser to the IdP's login page with a fresh PKCE pair, state and nonce. */
export async function signIn() {
  const verifier = oauth.generateRandomCodeVerifier();
  const pending = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() };
  sessionStorage.setItem(PENDING, JSON.stringify(pending));
  const url = new URL(as.authorization_endpoint);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid profile email',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  }).toString();
  location.assign(url.href);
}

/**
 * Handles the IdP's redirect to /console/callback, if this load is one: exchanges the code
 * for tokens and returns the ID token's claims (sub, name, email); null when this load is
 * no callback. Throws on an error answer or a mismatch (state, nonce, issuer), leaving
 * nobody signed in.
 */
export async function completeSignIn() {
  const current = new URL(location.href);
  if (current.pathname !== new URL(redirectUri).pathname) return null;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', HOME);
  tokens = null;
  if (!pending) throw new Error('sign-in answer without a sign-in in progress');
  const params = oauth.validateAuthResponse(as, client, current, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, pending.verifier, http);
  tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true });
  return oauth.getValidatedIdTokenClaims(tokens);
}

/** The current access token (sent as `Authorization: Bearer`), or '' when signed out. */
export function accessToken() {
  return tokens?.access_token ?? '';
}

/** Trades the refresh token for new tokens (the IdP rotates it); false when there is none or it failed. */
export async function refresh() {
  if (!tokens?.refresh_token) return false;
  try {
    const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token, http);
    tokens = await oauth.processRefreshTokenResponse(as, client, response);
    return true;
  } catch {
    tokens = null;
    return false;
  }
}

/** Revokes the refresh token (RFC 7009), forgets the tokens and ends the IdP session. */
export async function signOut() {
  const refreshToken = tokens?.refresh_token;
  tokens = null;
  if (refreshToken) {
    const response = await oauth.revocationRequest(as, client, oauth.None(), refreshToken, http);
    await oauth.processRevocationResponse(response).catch(() => undefined);
  }
  const url = new URL(as.end_session_endpoint);
  url.search = new URLSearchParams({ client_id: client.client_id, post_logout_redirect_uri: `${location.origin}${HOME}` }).toString();
  location.assign(url.href);
}
