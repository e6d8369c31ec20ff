// Bench child for `bench:apps`: a real IdP, the real RBAC app in several wirings, and the
// layers under it one by one, from a bare Express app serving the same greeting without
// any auth up to the full default stack, all on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express, { type RequestHandler } from 'express';
import { expressjwt } from 'express-jwt';
import { auth } from 'express-oauth2-jwt-bearer';
import { expressJwtSecret } from 'jwks-rsa';
import { requireAccessToken } from '@outpost/express-authz';
import { accessTokenMiddleware } from '../../../src/apps/app-dependencies';
import { createRbacApp } from '../../../src/apps/rbac';
import helmet from 'helmet';
import { createEdgeAuthorizer, openLocalAuthorizer, type Authorizer } from '../../../src/authorizer';
import { openEmbeddedAuthorizer, type EmbeddedAuthorizer } from '../../../src/embedded-edge';
import { decisionRecords } from '../../../src/decision-records';
import { loadConfig, type Config } from '../../../src/config';
import { loadDirectorySeed } from '../../../src/directory';
import { baseUrl, close, createApp, listen } from '../../../src/http';
import { openIdp, TOKEN_PATH } from '../../../src/idp';
import { createLogger, silentLogger, type Logger } from '../../../src/observability';
import { serveParent } from './child-endpoint';

export interface AppsStartArgs {
  /** The demo user whose access token the benchmark sends. */
  readonly username: string;
  /** An RBAC app asks this sidecar edge over HTTP (`rbac edge`). */
  readonly edgeUrl: string;
  /** The RBAC app's embedded edge connects here with this connection (`rbac embedded`, the default stack). */
  readonly relayUrl: string;
  readonly appConnection: { readonly connectionId: string; readonly connectionSecret: string };
}

export interface AppsInfo {
  /** Target label → base URL. */
  readonly urls: Record<string, string>;
  /** Rick's access token from the real token endpoint; never printed. */
  readonly accessToken: string;
  /** Morty's, for the propagation runs (his DELETE is what each change flips). */
  readonly mortyAccessToken: string;
  /** The embedded edge's instance id (the propagation bench sends it commands). */
  readonly embeddedInstanceId: string;
}

const HOUR = 3_600_000;
const greet = (name: string) => `Hello from DELETE /resource/${name}`;

const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-apps-'));
const servers: Server[] = [];
const authorizers: Authorizer[] = [];

/** The bare baseline: Express with its defaults, the same greeting, no auth, no logging. */
function bareApp(withHelmet = false): express.Express {
  const app = express();
  if (withHelmet) app.use(helmet());
  app.delete('/resource/:name', (req, res) => {
    res.type('text/plain').send(greet(String(req.params.name)));
  });
  return app;
}

/**
 * createApp as the RBAC app starts it (createRbacApp): its answers carry no ETag, so the
 * layers below the RBAC app do not hash a body the RBAC app never hashes.
 */
function rbacAppStack(logger: Logger): express.Express {
  const app = createApp(logger);
  app.set('etag', false);
  return app;
}

/** The app's own stack plus authentication only: what verifying the token costs on its own. */
function authenticatedOnly(config: Config, logger: Logger): express.Express {
  const app = rbacAppStack(logger);
  app.delete('/resource/:name', accessTokenMiddleware(config), (req, res) => {
    res.type('text/plain').send(greet(String(req.params.name)));
  });
  return app;
}

/**
 * The RBAC app's own stack (helmet, request id and request log line) serving the same
 * greeting with no authentication or authorization: the baseline that isolates what
 * auth + authz cost, as opposed to what every production app pays anyway.
 */
function sameStackNoAuth(logger: Logger): express.Express {
  const app = rbacAppStack(logger);
  app.delete('/resource/:name', (req, res) => {
    res.type('text/plain').send(greet(String(req.params.name)));
  });
  return app;
}

/** A bare Express app with one token middleware in front of the greeting: the middlewares compared as their users write them. */
function bareWith(middleware: RequestHandler): express.Express {
  const app = express();
  app.delete('/resource/:name', middleware, (req, res) => {
    res.type('text/plain').send(greet(String(req.params.name)));
  });
  return app;
}

/** The three token middlewares on the same IdP: ours, express-jwt + jwks-rsa as their READMEs use them, auth0's. */
function tokenMiddlewares(config: Config): Record<string, RequestHandler> {
  const { issuer, apiAudience: audience } = config.idp;
  const jwksUri = `${config.idp.url}/.well-known/jwks.json`;
  return {
    'bare + @outpost/express-authz': requireAccessToken({ issuer, audience, jwksUri }),
    'bare + express-jwt, jwks-rsa': expressjwt({ secret: expressJwtSecret({ jwksUri, cache: true, rateLimit: true }) as never, algorithms: ['RS256'], issuer, audience }),
    'bare + express-oauth2-jwt-bearer': auth({ issuer, audience, jwksUri, tokenSigningAlg: 'RS256' }),
  };
}

function rbacApp(config: Config, authorizer: Authorizer, logger: Logger): express.Express {
  authorizers.push(authorizer);
  return createRbacApp({ authenticate: accessTokenMiddleware(config), authorizer, policyName: 'rbac', logger });
}

async function serve(app: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = await listen(app, 0, '127.0.0.1');
  servers.push(server);
  return baseUrl(server);
}

async function start(args: AppsStartArgs): Promise<AppsInfo> {
  // The IdP's issuer is its own URL, so the port is taken before the config is built.
  let idpApp: express.Express | undefined;
  const authUrl = await serve((req, res) => idpApp?.(req, res));
  const config = loadConfig({ OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent', AUTH_URL: authUrl });
  const seed = loadDirectorySeed(config.directorySeedFile);
  idpApp = (await openIdp(config, silentLogger())).app;

  const accessToken = async (username: string) => {
    const res = await fetch(`${authUrl}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: seed.demoPassword }),
    });
    const tokens = (await res.json()) as { access_token?: string };
    if (res.status !== 200 || !tokens.access_token) throw new Error(`the IdP answered ${res.status} to the token request`);
    return tokens.access_token;
  };

  const local = openLocalAuthorizer({ policiesDir: config.policiesDir, policyName: 'rbac', directory: seed.directory });
  // The default stack's authorizer, wired as `openAppAuthorizer` wires it (timers out of the way).
  const embedded: EmbeddedAuthorizer = await openEmbeddedAuthorizer({
    relayUrl: args.relayUrl,
    ...args.appConnection,
    dataDir: join(dataDir, 'embedded'),
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: 24 * HOUR,
    logger: createLogger('rbac-app', 'info'),
    hostname: 'bench-rbac-app',
    plugins: [decisionRecords({ app: 'rbac' })], // as the app's own (src/apps/app-dependencies.ts)
    version: 'bench',
  });
  if (!embedded.edge.state.policy || !embedded.edge.state.directory) throw new Error('the embedded edge did not sync');
  // Request logs at the deployed level (`info`), written to /dev/null by the harness.
  const log = () => createLogger('rbac-app', 'info');
  const urls: Record<string, string> = {
    bare: await serve(bareApp()),
    // Bare Express sent the same bearer token, which nothing reads: the floor under every token middleware.
    'bare, token sent': await serve(bareApp()),
    'bare + helmet': await serve(bareApp(true)),
    'same stack, no auth': await serve(sameStackNoAuth(log())),
    'same stack + authn': await serve(authenticatedOnly(config, log())),
    'rbac embedded': await serve(rbacApp(config, embedded, log())),
    'rbac local': await serve(rbacApp(config, local, log())),
    'rbac edge': await serve(rbacApp(config, createEdgeAuthorizer({ url: args.edgeUrl }), log())),
  };
  for (const [label, middleware] of Object.entries(tokenMiddlewares(config))) urls[label] = await serve(bareWith(middleware));
  return {
    urls,
    accessToken: await accessToken(args.username),
    mortyAccessToken: await accessToken('morty@the-citadel.com'),
    embeddedInstanceId: embedded.edge.instanceId,
  };
}

serveParent({ start }, async () => {
  for (const server of servers) await close(server);
  for (const authorizer of authorizers) await authorizer.close();
  rmSync(dataDir, { recursive: true, force: true });
});
