// The browser side of OAuth 2.0 authorization code + PKCE (RFC 6749 §4.1, RFC 7636) with
// oauth4webapi, shared by Outpost's pages (the todo page and the console). Each page loads it
// from its own origin (no CDN) and passes in oauth4webapi and where it lives. Tokens live in
// this module's memory only (a reload signs in again, one click while the IdP session lasts);
// only the PKCE verifier, state and nonce survive the redirect, in sessionStorage, deleted as
// soon as the callback is handled.

/**
 * Creates a sign-in client for one page.
 * @param oauth the oauth4webapi module
 * @param options `configUrl` (JSON with `auth_url` and `client_id`), `pendingKey`
 *   (sessionStorage key), `redirectUri`, `homeUrl` (where the page goes after the callback
 *   and after signing out), `scope`, and `isCallback(url)`: whether this load is the IdP's
 *   redirect back.
 */
export async function createCodeFlowClient(oauth, options) {
  const config = await (await fetch(options.configUrl)).json();
  const issuer = new URL(config.auth_url);
  // The demo IdP runs on http://localhost; oauth4webapi refuses plain http unless told.
  const http = issuer.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {};
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, http));
  const client = { client_id: config.client_id };
  let tokens = null;

  return {
    /** Sends the browser to the IdP's login page with a fresh PKCE pair, state and nonce. */
    async signIn() {
      const verifier = oauth.generateRandomCodeVerifier();
      const pending = { verifier, state: oauth.generateRandomState(), nonce: oauth.generateRandomNonce() };
      sessionStorage.setItem(options.pendingKey, JSON.stringify(pending));
      const url = new URL(as.authorization_endpoint);
      url.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: options.redirectUri,
        response_type: 'code',
        scope: options.scope,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: pending.state,
        nonce: pending.nonce,
      }).toString();
      location.assign(url.href);
    },

    /**
     * Handles the IdP's redirect back, if this load is one: exchanges the code for tokens and
     * returns the ID token's claims; null when this load is no callback. Throws on an error
     * answer or a mismatch (state, nonce, issuer), leaving nobody signed in.
     */
    async completeSignIn() {
      const current = new URL(location.href);
      if (!options.isCallback(current)) return null;
      const pending = JSON.parse(sessionStorage.getItem(options.pendingKey) ?? 'null');
      sessionStorage.removeItem(options.pendingKey);
      history.replaceState(null, '', options.homeUrl);
      tokens = null;
      if (!pending) throw new Error('sign-in answer without a sign-in in progress');
      const params = oauth.validateAuthResponse(as, client, current, pending.state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, options.redirectUri, pending.verifier, http);
      tokens = await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: pending.nonce, requireIdToken: true });
      return oauth.getValidatedIdTokenClaims(tokens);
    },

    /** The current access token (sent as `Authorization: Bearer`), or '' when signed out. */
    accessToken() {
      return tokens?.access_token ?? '';
    },

    /** Trades the refresh token for new tokens (the IdP rotates it); false when there is none or it failed. */
    async refresh() {
      if (!tokens?.refresh_token) return false;
      try {
        const response = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token, http);
        tokens = await oauth.processRefreshTokenResponse(as, client, response);
        return true;
      } catch {
        tokens = null;
        return false;
      }
    },

    /** Revokes the refresh token (RFC 7009), forgets the tokens and ends the IdP session. */
    async signOut() {
      const refreshToken = tokens?.refresh_token;
      tokens = null;
      if (refreshToken) {
        const response = await oauth.revocationRequest(as, client, oauth.None(), refreshToken, http);
        await oauth.processRevocationResponse(response).catch(() => undefined);
      }
      const url = new URL(as.end_session_endpoint);
      url.search = new URLSearchParams({ client_id: client.client_id, post_logout_redirect_uri: new URL(options.homeUrl, location.origin).href }).toString();
      location.assign(url.href);
    },
  };
}
