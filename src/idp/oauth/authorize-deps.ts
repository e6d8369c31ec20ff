import type { Response } from 'express';
import type { Logger } from '../../observability';
import type { CheckPassword } from '../check-password';
import type { Clock } from '../clock';
import type { UserStore } from '../user-store';
import { serializeCookie } from './cookies';
import type { GrantStore } from './grant-store';
import { LOGIN_COOKIE, type LoginSessions } from './login-sessions';
import { LOGIN_REQUEST_TTL_SECONDS } from './oauth-paths';
import type { AuthorizeRequest } from './read-authorize-request';
import type { RegisteredClients } from './registered-clients';
import { renderLoginPage, renderPage, type LoginPageModel } from './render-login-page';

/** The busy page's text, when no login form can be opened. */
const LOGIN_BUSY = 'Too many sign-ins are open at the moment.';

/** What /authorize and the login form share. */
export interface AuthorizeDeps {
  readonly issuer: string;
  readonly clients: RegisteredClients;
  readonly sessions: LoginSessions;
  readonly grants: GrantStore;
  readonly users: UserStore;
  readonly checkPassword: CheckPassword;
  readonly clock: Clock;
  readonly logger: Logger;
  /** True when the IdP is served over https: its cookies get `Secure`. */
  readonly secureCookies: boolean;
}

/**
 * Answers with the login page for `request`: a fresh pending login (cookie + CSRF token),
 * never cached, never framed (clickjacking), `status` 200 or the failure's status. When the
 * table of open forms is full of other addresses' single forms the page says so instead:
 * 503 with `Retry-After` and no form, so a flood never takes a waiting person's form.
 */
export function sendLoginPage(
  res: Response,
  deps: AuthorizeDeps,
  request: AuthorizeRequest,
  model: Omit<LoginPageModel, 'clientId' | 'csrfToken' | 'users'>,
  status = 200,
): void {
  const started = deps.sessions.startLogin(request, res.req.socket.remoteAddress);
  if (!started.ok) {
    deps.logger.warn({ req_id: res.req.id }, 'login form refused: the table of open forms is full');
    res
      .status(503)
      .set({ 'Cache-Control': 'no-store', 'Retry-After': String(started.retryAfter) })
      .type('html')
      .send(renderPage('Sign-in busy', `<p role="alert">${LOGIN_BUSY} Try again in ${started.retryAfter} seconds.</p>`));
    return;
  }
  const { id, csrfToken } = started;
  res
    .status(status)
    .set({
      'Cache-Control': 'no-store',
      'X-Frame-Options': 'DENY',
      // form-action also governs the redirect after the post (Chromium), so the client's origin is allowed.
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${new URL(request.redirectUri).origin}; frame-ancestors 'none'`,
    })
    .append('Set-Cookie', serializeCookie(LOGIN_COOKIE, id, LOGIN_REQUEST_TTL_SECONDS, deps.secureCookies))
    .type('html')
    .send(renderLoginPage({ ...model, clientId: request.client.clientId, csrfToken, users: deps.users.list() }));
}
