import type { Express } from 'express';
import type { Config } from '../../config';
import type { Logger } from '../../observability';
import type { CheckPassword } from '../check-password';
import type { Clock } from '../clock';
import type { IssueTokens } from '../issue-tokens';
import type { KeyStore } from '../key-store';
import type { UserStore } from '../user-store';
import { authorizeEndpoint } from './authorize-endpoint';
import { endSessionEndpoint } from './end-session-endpoint';
import { formTokenEndpoint } from './form-token-endpoint';
import { createGrantStore } from './grant-store';
import { loginForm } from './login-form';
import { createLoginSessions } from './login-sessions';
import { registeredClients } from './registered-clients';
import { revokeEndpoint } from './revoke-endpoint';
import type { StoreLimits } from './store-limits';
import { userinfoEndpoint } from './userinfo-endpoint';

/** What the OAuth routes need from the IdP app. */
export interface OAuthRoutesDeps {
  readonly options: Pick<Config['idp'], 'issuer' | 'apiAudience' | 'clientId' | 'clients'>;
  readonly users: UserStore;
  readonly keys: KeyStore;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly issueTokens: IssueTokens;
  readonly checkPassword: CheckPassword;
  /** Bounds of the codes, refresh tokens, sessions and login forms kept in memory. */
  readonly limits: StoreLimits;
}

/** Adds /authorize, /login, the form-encoded token grants, /userinfo, /revoke and /logout. */
export function mountOAuthRoutes(app: Express, deps: OAuthRoutesDeps): void {
  const { options, users, keys, logger, clock, issueTokens, checkPassword, limits } = deps;
  const clients = registeredClients(options.clients);
  const grants = createGrantStore(clock, limits);
  const sessions = createLoginSessions(clock, limits);
  const secureCookies = options.issuer.startsWith('https:');
  const authorizeDeps = { issuer: options.issuer, clients, sessions, grants, users, checkPassword, clock, logger, secureCookies };

  app.use(authorizeEndpoint(authorizeDeps));
  app.use(loginForm(authorizeDeps));
  app.use(formTokenEndpoint({ clients, grants, issueTokens, checkPassword, logger, demoClientId: options.clientId }));
  const audiences = [options.apiAudience, ...options.clients.flatMap((c) => (c.audience === undefined ? [] : [c.audience]))];
  app.use(userinfoEndpoint({ issuer: options.issuer, audiences, keys, users }));
  app.use(revokeEndpoint({ grants, clients }));
  app.use(endSessionEndpoint({ sessions, clients, secureCookies }));
}
