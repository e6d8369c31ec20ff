import { createHmac, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import type Provider from 'oidc-provider';
import { formBody } from '../http';
import type { Logger } from '../observability';
import type { CheckPassword } from './check-password';
import { renderLoginPage, renderPage, type LoginPageModel } from './login-page-html';
import { LOGIN_PATH } from './provider';
import { INVALID_CREDENTIALS } from './token-endpoint';
import type { UserStore } from './user-store';

/** Bounds of the form's fields; beyond them the password is not even checked. */
const MAX_USERNAME = 256;
const MAX_PASSWORD = 1024;

export interface LoginPageDeps {
  /** The provider of the moment (it is rebuilt when the signing keys rotate). */
  readonly provider: () => Provider;
  readonly users: UserStore;
  readonly checkPassword: CheckPassword;
  /** Signs the CSRF token of each form: the newest cookie key. */
  readonly csrfKey: () => Buffer;
  readonly logger: Logger;
}

/** The form's CSRF token: a MAC of the interaction's uid, so it is valid for that one form only. */
function csrfTokenFor(key: Buffer, uid: string): string {
  return createHmac('sha256', key).update(`login:${uid}`).digest('base64url');
}

function sameToken(given: unknown, expected: string): boolean {
  if (typeof given !== 'string' || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/**
 * The provider's login interaction, as Outpost's own page: `GET /login/<uid>` shows the form
 * (the demo users, a CSRF token bound to this sign-in), `POST /login/<uid>` checks the
 * password through the same throttle and hashing bound as the token endpoint, then hands
 * the user back to the provider, which redirects to the client with a code. The provider's
 * interaction cookie ties the form to the browser that opened it.
 */
export function loginPage(deps: LoginPageDeps): Router {
  const router = Router();

  /** The interaction behind `/login/<uid>`, or undefined after answering 403 (expired, or not this browser's). */
  async function interactionFor(req: Request, res: Response) {
    try {
      const details = await deps.provider().interactionDetails(req, res);
      if (details.uid === req.params.uid) return details;
    } catch {
      // SessionNotFound: no interaction cookie, or it expired.
    }
    deps.logger.warn({ req_id: req.id }, 'login form refused: no open sign-in for this browser');
    res
      .status(403)
      .type('html')
      .send(renderPage('Sign-in expired', '<p role="alert">This sign-in form expired or was not ours. Go back to the application and start again.</p>'));
    return undefined;
  }

  function sendPage(req: Request, res: Response, details: { uid: string; params: Record<string, unknown> }, model: Pick<LoginPageModel, 'error' | 'username'>, status = 200): void {
    const redirectOrigin = new URL(String(details.params.redirect_uri)).origin;
    res
      .status(status)
      .set({
        'X-Frame-Options': 'DENY',
        // form-action also governs the redirects after the post (Chromium): the client's origin is allowed.
        'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${redirectOrigin}; frame-ancestors 'none'`,
      })
      .type('html')
      .send(
        renderLoginPage({
          ...model,
          clientId: String(details.params.client_id),
          action: `${LOGIN_PATH}/${details.uid}`,
          csrfToken: csrfTokenFor(deps.csrfKey(), details.uid),
          users: deps.users.list(),
        }),
      );
    deps.logger.debug({ req_id: req.id }, 'login page shown');
  }

  router.use(`${LOGIN_PATH}/:uid`, function noStore(_req, res, next) {
    res.set('Cache-Control', 'no-store');
    next();
  });

  router.get(`${LOGIN_PATH}/:uid`, async function showLogin(req, res) {
    const details = await interactionFor(req, res);
    if (details) sendPage(req, res, details, {});
  });

  router.post(`${LOGIN_PATH}/:uid`, formBody(4 * 1024), async function login(req, res) {
    const details = await interactionFor(req, res);
    if (!details) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!sameToken(body.csrf_token, csrfTokenFor(deps.csrfKey(), details.uid))) {
      deps.logger.warn({ req_id: req.id }, 'login form refused: missing or wrong CSRF token');
      res.status(403).type('html').send(renderPage('Sign-in refused', '<p role="alert">This form was not sent by the sign-in page. Go back to the application and start again.</p>'));
      return;
    }
    const { username, password } = body;
    if (typeof username !== 'string' || typeof password !== 'string' || !username || !password || username.length > MAX_USERNAME || password.length > MAX_PASSWORD) {
      sendPage(req, res, details, { error: 'Choose a user and enter the password.' }, 400);
      return;
    }
    const check = await deps.checkPassword(username, password, req.socket.remoteAddress);
    if (check.outcome === 'throttled') {
      deps.logger.warn({ req_id: req.id }, 'sign-in throttled');
      res.set('Retry-After', String(check.retryAfter));
      sendPage(req, res, details, { username, error: `Too many failed sign-ins; try again in ${check.retryAfter} seconds.` }, 429);
      return;
    }
    if (check.outcome === 'overloaded') {
      deps.logger.warn({ req_id: req.id }, 'sign-in shed');
      res.set('Retry-After', String(check.retryAfter));
      sendPage(req, res, details, { username, error: 'The sign-in service is busy; try again in a moment.' }, 503);
      return;
    }
    if (check.outcome === 'invalid') {
      deps.logger.info({ req_id: req.id }, 'sign-in failed');
      sendPage(req, res, details, { username, error: `Sign-in failed: ${INVALID_CREDENTIALS}.` }, 401);
      return;
    }
    deps.logger.info({ req_id: req.id, sub: check.user.id, client_id: details.params.client_id }, 'signed in at the login page');
    // The provider starts a fresh session (no fixation) and redirects (303) back through /authorize.
    await deps.provider().interactionFinished(req, res, { login: { accountId: check.user.id } }, { mergeWithLastSubmission: false });
  });
  return router;
}
