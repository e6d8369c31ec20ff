import { Router } from 'express';
import { serializeCookie, readCookie } from './cookies';
import { redirectWithParams } from './finish-authorization';
import { SESSION_COOKIE, type LoginSessions } from './login-sessions';
import { END_SESSION_PATH } from './oauth-paths';
import type { RegisteredClients } from './registered-clients';
import { renderPage } from './render-login-page';

/**
 * `GET /logout` (OIDC RP-Initiated Logout 1.0 §2): ends the IdP session and clears its
 * cookie, then returns to `post_logout_redirect_uri` when it is registered for `client_id`
 * (exact match, §3), else shows a "signed out" page. Sign-out needs no proof: the worst a
 * forged link can do is sign someone out.
 */
export function endSessionEndpoint(deps: {
  readonly sessions: LoginSessions;
  readonly clients: RegisteredClients;
  readonly secureCookies: boolean;
}): Router {
  const router = Router();
  router.get(END_SESSION_PATH, function endSession(req, res) {
    deps.sessions.endSession(readCookie(req.headers.cookie, SESSION_COOKIE));
    res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, '', 0, deps.secureCookies));
    const query = req.query as Record<string, unknown>;
    const client = deps.clients.find(query.client_id);
    const target = query.post_logout_redirect_uri;
    if (client && typeof target === 'string' && client.postLogoutRedirectUris.includes(target)) {
      const state = typeof query.state === 'string' ? query.state : undefined;
      redirectWithParams(res, target, { state });
      return;
    }
    res.set('Cache-Control', 'no-store').type('html').send(renderPage('Signed out', '<p>You are signed out of the Outpost IdP.</p>'));
  });
  return router;
}
