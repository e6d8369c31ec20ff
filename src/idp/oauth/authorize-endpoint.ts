import { Router } from 'express';
import type { AuthorizeDeps } from './authorize-deps';
import { sendLoginPage } from './authorize-deps';
import { readCookie } from './cookies';
import { redirectWithCode, redirectWithParams } from './finish-authorization';
import { SESSION_COOKIE } from './login-sessions';
import { AUTHORIZE_PATH } from './oauth-paths';
import { readAuthorizeRequest } from './read-authorize-request';
import { escapeHtml, renderPage } from './render-login-page';

/**
 * `GET /authorize` (RFC 6749 §4.1.1 with RFC 7636 PKCE, OIDC Core §3.1.2): shows the login
 * page, or — with `prompt=none` and a live session — answers at once with a code.
 */
export function authorizeEndpoint(deps: AuthorizeDeps): Router {
  const router = Router();
  router.get(AUTHORIZE_PATH, function authorize(req, res) {
    const result = readAuthorizeRequest(req.query as Record<string, unknown>, deps.clients);
    if (result.kind === 'page') {
      deps.logger.info({ req_id: req.id }, 'authorization request refused: unknown client or redirect_uri');
      res
        .status(400)
        .set('Cache-Control', 'no-store')
        .type('html')
        .send(renderPage('Sign-in request refused', `<p role="alert">${escapeHtml(result.message)}</p>`));
      return;
    }
    if (result.kind === 'redirect') {
      const { redirectUri, error, description, state } = result;
      redirectWithParams(res, redirectUri, { error, error_description: description, state, iss: deps.issuer });
      return;
    }
    const { request } = result;
    const session = deps.sessions.session(readCookie(req.headers.cookie, SESSION_COOKIE));
    if (request.prompt === 'none') {
      if (session) redirectWithCode(res, deps.grants, deps.issuer, request, session);
      else redirectWithParams(res, request.redirectUri, { error: 'login_required', state: request.state, iss: deps.issuer });
      return;
    }
    const current = request.prompt === 'login' ? undefined : session?.user;
    sendLoginPage(res, deps, request, current ? { current } : {});
  });
  return router;
}
