// Sign-in for the todo page (code + PKCE, the shared client in src/http/public/
// code-flow-client.js). The page never sees a password; the IdP redirects back to `/`.
import * as oauth from './vendor/oauth4webapi.js';
import { createCodeFlowClient } from './vendor/code-flow-client.js';

const client = await createCodeFlowClient(oauth, {
  configUrl: '/config.json',
  pendingKey: 'outpost-todo-pending-sign-in',
  redirectUri: `${location.origin}/`,
  homeUrl: '/',
  scope: 'openid profile email api',
  isCallback: (url) => url.searchParams.has('code') || url.searchParams.has('error'),
});

export const { signIn, accessToken, refresh, signOut } = client;

/** Finishes a sign-in if this load is the IdP's redirect back: the signed-in e-mail; null otherwise. */
export async function completeSignIn() {
  const claims = await client.completeSignIn();
  return claims === null ? null : claims.email;
}
