import type { RequestListener } from 'node:http';
import type { Express, Request, RequestHandler, Response, Router } from 'express';
import type Provider from 'oidc-provider';
import type { Adapter } from 'oidc-provider';
import type { Config } from '../config';
import { createApp, finishApp, oauthError } from '../http';
import type { Logger } from '../observability';
import { answerStorageErrors } from './answer-storage-errors';
import { allowBrowserOrigins } from './allow-browser-origins';
import { createPasswordCheck, throttleLimitFor } from './check-password';
import type { Clock } from './clock';
import { createTokenIssuer } from './issue-tokens';
import type { KeyStore } from './key-store';
import type { HashingLimiter } from './limit-hashing';
import { limitSignIns, type SignInLimit } from './limit-sign-ins';
import { loginPage } from './login-page';
import { createLoginThrottle } from './login-throttle';
import { registerPasswordGrant } from './password-grant';
import type { MachineClient } from './machine-client';
import { createProvider, DISCOVERY_PATH, ROUTES } from './provider';
import { tokenEndpoint } from './token-endpoint';
import type { UserStore } from './user-store';
import { userinfoEndpoint } from './userinfo';

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
  | 'clockTolerance'
  | 'corsOrigins'
  | 'clients'
>;

export interface IdpAppDeps {
  readonly options: IdpOptions;
  readonly users: UserStore;
  readonly keys: KeyStore;
  /** Bounds concurrent password checks; its owner closes it on shutdown. */
  readonly hashing: HashingLimiter;
  /** The provider's storage (oidc-storage.ts): codes, refresh tokens, sessions, sign-ins. */
  readonly adapter: (model: string) => Adapter;
  readonly machineClient: MachineClient;
  readonly logger: Logger;
  readonly clock: Clock;
  /** How many sign-ins one address may start (tests make it small). */
  readonly signInLimit?: SignInLimit;
  /**
   * The platform's routers (`/openapi.json`, src/idp-server), mounted after `/healthz` and before
   * the IdP's own routes, so none may answer a path of the IdP's. The process that runs the IdP
   * (src/idp-server) hands them over; the IdP imports none of them.
   */
  readonly routers?: readonly Router[];
}

/**
 * Bodies the provider reads: one whose `Content-Length` is over this is refused before a byte
 * is read (the provider itself reads up to 56 kB, which is what a chunked body may still be).
 */
const PROVIDER_BODY_LIMIT = 4 * 1024;

/** The paths the provider answers (and those under them, like `/authorize/<uid>`); the rest get Outpost's JSON 404. */
const PROVIDER_PATHS = [...Object.values(ROUTES), DISCOVERY_PATH];

function isProviderPath(path: string): boolean {
  return PROVIDER_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * 400 for a declared body over the limit (as the JSON endpoint answers; the connection is
 * closed once the answer is out, so the rest is never read), 415 for a compressed one: the
 * provider inflates nothing. Neither answer may be cached (RFC 6749 §5.1).
 */
function assertBoundedBody(req: Request, res: Response): void {
  const encoding = req.headers['content-encoding'];
  const oversized = Number(req.headers['content-length'] ?? 0) > PROVIDER_BODY_LIMIT;
  if (!oversized && (encoding === undefined || encoding.toLowerCase() === 'identity')) return;
  res.set({ 'Cache-Control': 'no-store', Connection: 'close' });
  res.once('finish', () => req.socket.destroySoon());
  if (oversized) throw oauthError('invalid_request', `the request body is over ${PROVIDER_BODY_LIMIT} bytes`);
  throw oauthError('invalid_request', 'compressed request bodies are not accepted', { status: 415 });
}

/**
 * The demo IdP as an Express app. The OAuth 2.0 / OIDC protocol (authorize, the
 * form-encoded token endpoint, revocation, logout, discovery, JWKS) is node-oidc-provider's,
 * mounted last; Outpost's own parts come first: the seed's JSON token endpoint, the
 * password grant's check, the login page, userinfo and the health check, with the platform's
 * routers (`deps.routers`) after the health check.
 * Pure: it opens nothing and listens nowhere; the caller (open-idp.ts, a test) does that.
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
  const checkPassword = createPasswordCheck({ users, throttle, hashing });
  const adapter = answerStorageErrors(deps.adapter);

  // The provider takes its keys when built, so a rotation (npm run rotate-key) builds a new
  // one on the next request; everything it keeps is in storage, so nothing is lost.
  let current: { version: string; provider: Provider; handle: RequestListener; cookieKey: Buffer } | undefined;
  const useCurrentKeys: RequestHandler = async function useCurrentKeys(_req, _res, next) {
    const { version, jwks, cookieKeys } = await keys.providerKeys();
    if (current?.version !== version) {
      const provider = createProvider({ options, users, jwks, cookieKeys, adapter, machineClient: deps.machineClient });
      registerPasswordGrant(provider, { checkPassword, issueTokens, logger });
      provider.on('server_error', (_ctx, err) => logger.error({ err }, 'OIDC provider error'));
      current = { version, provider, handle: provider.callback(), cookieKey: cookieKeys[0]! };
    }
    next();
  };

  const app = createApp(logger);
  app.use(allowBrowserOrigins(options.corsOrigins));
  app.get('/healthz', function healthz(_req, res) {
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  for (const router of deps.routers ?? []) app.use(router);
  app.use(tokenEndpoint({ checkPassword, issueTokens, logger }));
  const audiences = [options.apiAudience, ...options.clients.flatMap((c) => (c.audience === undefined ? [] : [c.audience]))];
  app.use(userinfoEndpoint({ issuer: options.issuer, audiences, keys, users, clockTolerance: options.clockTolerance }));
  app.use(limitSignIns(clock, deps.signInLimit));
  app.use(useCurrentKeys);
  app.use(loginPage({ provider: () => current!.provider, csrfKey: () => current!.cookieKey, users, checkPassword, logger }));
  app.use(function oidcProvider(req, res, next) {
    if (!isProviderPath(req.path)) {
      next();
      return;
    }
    assertBoundedBody(req, res);
    current!.handle(req, res);
  });
  return finishApp(app, logger, 'oauth');
}
