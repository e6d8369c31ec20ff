// Sign-in for the todo page: OAuth 2.0 authorization code + PKCE (RFC 6749 §4.1, RFC 7636)
// with oauth4webapi, served from this app's own origin. The page never sees a password;
// tokens live in this module's memory only (a reload signs in again, one click while the
// IdP session lasts). Only the PKCE verifier, state and nonce survive the redirect, in
// sessionStorage, and are deleted as soon as the callback is handled.
import * as oauth from './vendor/oauth4webapi.js';

const PENDING = 'outpost-todo-pending-sign-in';
const config = await (await fetch('/config.json')).json();
const issuer = new URL(config.auth_url);
// The demo IdP runs on http://localhost; oauth4webapi refuses plain http unless told.
const http = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, http));
const client = { client_id: config.client_id };
const redirectUri = `${location.origin}/`;
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
    scope: 'openid profile email api',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
  }).toString();
  location.assign(url.href);
}

/**
 * Handles the IdP's redirect back, if this load is one: exchanges the code for tokens and
 * returns the signed-in e-mail; null when this load is no callback. Throws on an error
 * answer or a mismatch (state, nonce, issuer), leaving nobody signed in.
 */
export async function completeSignIn() {
  const current = new URL(location.href);
  if (!current.searchParams.has('code') && !current.searchParams.has('error')) return null;
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null');
  sessionStorage.removeItem(PENDING);
  history.replaceState(null, '', '/');
  tokens = null;
  if (!pending) throw new Error('sign-in answer without a sign-in in progress');
  const params = oauth.validateAuthResponse(as, client, current, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, redirectUri, pending.verifier, http);
  tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true });
  return oauth.getValidatedIdTokenClaims(tokens).email;
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
  url.search = new URLSearchParams({ client_id: client.client_id, post_logout_redirect_uri: redirectUri }).toString();
  location.assign(url.href);
}
