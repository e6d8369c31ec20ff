import type { Express } from 'express';
import type { Config } from '../config';
import { createApp, finishApp, OPENAPI_PATH, serveOpenApi } from '../http';
import { IDP_OPENAPI } from './idp-openapi';
import { allowBrowserOrigins } from './allow-browser-origins';
import type { Logger } from '../observability';
import type { Clock } from './clock';
import { discoveryRoutes } from './discovery';
import { createTokenIssuer } from './issue-tokens';
import type { KeyStore } from './key-store';
import type { HashingLimiter } from './limit-hashing';
import { createLoginThrottle } from './login-throttle';
import { tokenEndpoint } from './token-endpoint';
import { createPasswordCheck, throttleLimitFor } from './check-password';
import { mountOAuthRoutes } from './oauth/mount-oauth-routes';
import { storeLimits, type StoreLimits } from './oauth/store-limits';
import type { UserStore } from './user-store';

/** The IdP settings the app needs: the `idp` section of {@link Config}. */
export type IdpOptions = Pick<
  Config['idp'],
  | 'url'
  | 'issuer'
  | 'apiAudience'
  | 'clientId'
  | 'accessTokenTtl'
  | 'idTokenTtl'
  | 'maxLoginFailures'
  | 'loginFailureWindow'
  | 'corsOrigins'
  | 'clients'
>;

export interface IdpAppDeps {
  readonly options: IdpOptions;
  readonly users: UserStore;
  readonly keys: KeyStore;
  /** Bounds concurrent password checks; its owner closes it on shutdown. */
  readonly hashing: HashingLimiter;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Smaller bounds for the in-memory codes, refresh tokens, sessions and login forms (tests). */
  readonly limits?: Partial<StoreLimits>;
}

/**
 * The demo IdP as an Express app: the seed's JSON token endpoint, the OAuth 2.0 / OIDC
 * endpoints around it (authorize + login page, form-encoded grants, userinfo, revocation,
 * sign-out), discovery, JWKS and health check.
 * Pure: it opens nothing and listens nowhere; the caller (main.ts, a test) does that.
 */
export function createIdpApp(deps: IdpAppDeps): Express {
  const { options, users, keys, hashing, logger, clock } = deps;
  const issueTokens = createTokenIssuer({ ...options, keys, clock });
  const throttle = createLoginThrottle({
    maxFailures: options.maxLoginFailures,
    limitFor: throttleLimitFor(options.maxLoginFailures),
    windowSeconds: options.loginFailureWindow,
    clock,
  });

  const app = createApp(logger);
  app.use(allowBrowserOrigins(options.corsOrigins));
  app.get('/healthz', function healthz(_req, res) {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  app.get(OPENAPI_PATH, serveOpenApi(IDP_OPENAPI));
  app.use(discoveryRoutes({ issuer: options.issuer, baseUrl: options.url, keys }));
  const checkPassword = createPasswordCheck({ users, throttle, hashing });
  // Form-encoded token requests are taken first; everything else reaches the JSON endpoint.
  const limits = storeLimits(deps.limits);
  mountOAuthRoutes(app, { options, users, keys, logger, clock, issueTokens, checkPassword, limits });
  app.use(tokenEndpoint({ checkPassword, issueTokens, logger }));
  return finishApp(app, logger, 'oauth');
}
