// Sign-in for the console as the public client `outpost-console` (code + PKCE, the shared
// client in src/http/public/code-flow-client.js). The IdP redirects to /console/callback,
// which serves this same page; the code exchange happens there.
import * as oauth from '/console/vendor/oauth4webapi.js';
import { createCodeFlowClient } from '/console/vendor/code-flow-client.js';

const client = await createCodeFlowClient(oauth, {
  configUrl: '/console/config.json',
  pendingKey: 'outpost-console-pending-sign-in',
  redirectUri: `${location.origin}/console/callback`,
  homeUrl: '/console/',
  scope: 'openid profile email',
  isCallback: (url) => url.pathname === '/console/callback',
});

export const { signIn, accessToken, refresh, signOut } = client;

/** Finishes a sign-in on /console/callback: the ID token's claims (sub, name, email); null on any other load. */
export const completeSignIn = () => client.completeSignIn();
