import { Router } from 'express';
import { formBody } from '../../http';
import { INVALID_CREDENTIALS } from '../token-endpoint';
import { sendLoginPage, type AuthorizeDeps } from './authorize-deps';
import { readCookie, serializeCookie } from './cookies';
import { redirectWithCode } from './finish-authorization';
import { LOGIN_COOKIE, SESSION_COOKIE } from './login-sessions';
import { LOGIN_PATH, SESSION_TTL_SECONDS } from './oauth-paths';
import { renderPage } from './render-login-page';

/** Bounds of the form's fields; beyond them the password is not even checked. */
const MAX_USERNAME = 256;
const MAX_PASSWORD = 1024;

/**
 * `POST /login`, the login page's form. The pending login comes from the `outpost_login`
 * cookie and must match the form's CSRF token; then either "Continue" with the live
 * session or a password checked exactly like the token endpoint (same throttle). On
 * success the browser gets a session cookie and goes back to the client with a code.
 */
export function loginForm(deps: AuthorizeDeps): Router {
  const router = Router();
  router.post(LOGIN_PATH, formBody(4 * 1024), async function login(req, res) {
    res.set('Cache-Control', 'no-store');
    const body = (req.body ?? {}) as Record<string, unknown>;
    const pending = deps.sessions.takeLogin(readCookie(req.headers.cookie, LOGIN_COOKIE), body.csrf_token);
    if (!pending) {
      deps.logger.warn({ req_id: req.id }, 'login form refused: missing or wrong CSRF token');
      res
        .status(403)
        .type('html')
        .send(renderPage('Sign-in expired', '<p role="alert">This sign-in form expired or was not ours. Go back to the application and start again.</p>'));
      return;
    }
    const { request } = pending;
    const sessionId = readCookie(req.headers.cookie, SESSION_COOKIE);

    if (body.action === 'continue') {
      // prompt=login asked for the password again: the session may not stand in for it.
      const session = request.prompt === 'login' ? undefined : deps.sessions.session(sessionId);
      if (session) {
        redirectWithCode(res, deps.grants, deps.issuer, request, session);
        return;
      }
      sendLoginPage(res, deps, request, { error: 'Your session ended; enter the password again.' }, 401);
      return;
    }

    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string' || username.length > MAX_USERNAME || password.length > MAX_PASSWORD || !username || !password) {
      sendLoginPage(res, deps, request, { error: 'Choose a user and enter the password.' }, 400);
      return;
    }
    const check = await deps.checkPassword(username, password, req.socket.remoteAddress);
    if (check.outcome === 'throttled') {
      deps.logger.warn({ req_id: req.id }, 'sign-in throttled');
      res.set('Retry-After', String(check.retryAfter));
      sendLoginPage(res, deps, request, { username, error: `Too many failed sign-ins; try again in ${check.retryAfter} seconds.` }, 429);
      return;
    }
    if (check.outcome === 'overloaded') {
      deps.logger.warn({ req_id: req.id }, 'sign-in shed');
      res.set('Retry-After', String(check.retryAfter));
      sendLoginPage(res, deps, request, { username, error: 'The sign-in service is busy; try again in a moment.' }, 503);
      return;
    }
    if (check.outcome === 'invalid') {
      deps.logger.info({ req_id: req.id }, 'sign-in failed');
      sendLoginPage(res, deps, request, { username, error: `Sign-in failed: ${INVALID_CREDENTIALS}.` }, 401);
      return;
    }
    // A fresh session id on every sign-in, so a planted cookie can never be promoted (session fixation).
    deps.sessions.endSession(sessionId);
    const session = { user: check.user, authTime: Math.floor(deps.clock() / 1000) };
    const id = deps.sessions.startSession(session);
    // No room for another session (every one is a different user's only one): this sign-in
    // still completes, and the next one asks for the password again.
    if (id === undefined) deps.logger.warn({ req_id: req.id }, 'no session: the table of sessions is full');
    else res.append('Set-Cookie', serializeCookie(SESSION_COOKIE, id, SESSION_TTL_SECONDS, deps.secureCookies));
    deps.logger.info({ req_id: req.id, sub: check.user.id, client_id: request.client.clientId }, 'signed in at the login page');
    redirectWithCode(res, deps.grants, deps.issuer, request, session);
  });
  return router;
}
