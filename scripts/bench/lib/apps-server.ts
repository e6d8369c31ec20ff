// Bench child for `bench:apps`: a real IdP, the real RBAC app in several wirings, and a
// bare Express app serving the same greeting without any auth, all on 127.0.0.1.
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { accessTokenMiddleware } from '../../../src/apps/app-dependencies';
import { createRbacApp } from '../../../src/apps/rbac';
import { createEdgeAuthorizer, openLocalAuthorizer, type Authorizer } from '../../../src/authorizer';
import { loadConfig, type Config } from '../../../src/config';
import { loadDirectorySeed } from '../../../src/directory';
import { baseUrl, close, createApp, listen } from '../../../src/http';
import { openIdp, TOKEN_PATH } from '../../../src/idp';
import { createLogger, silentLogger, type Logger } from '../../../src/observability';
import { serveParent } from './child-endpoint';

export interface AppsStartArgs {
  /** The demo user whose access token the benchmark sends. */
  readonly username: string;
  /** When set, an extra RBAC app asks this edge authorizer instead of deciding locally. */
  readonly edgeUrl?: string;
}

export interface AppsInfo {
  /** Target label → base URL. */
  readonly urls: Record<string, string>;
  /** Rick's access token from the real token endpoint; never printed. */
  readonly accessToken: string;
}

const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-apps-'));
const servers: Server[] = [];
const authorizers: Authorizer[] = [];

/** The bare baseline: Express with its defaults, the same greeting, no auth, no logging. */
function bareApp(): express.Express {
  const app = express();
  app.delete('/resource/:name', (req, res) => {
    res.type('text/plain').send(`Hello from DELETE /resource/${String(req.params.name)}`);
  });
  return app;
}

/**
 * The RBAC app's own stack (helmet, request id and request log line) serving the same
 * greeting with no authentication or authorization: the baseline that isolates what
 * auth + authz cost, as opposed to what every production app pays anyway.
 */
function sameStackNoAuth(logger: Logger): express.Express {
  const app = createApp(logger);
  app.delete('/resource/:name', (req, res) => {
    res.type('text/plain').send(`Hello from DELETE /resource/${String(req.params.name)}`);
  });
  return app;
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

  const res = await fetch(`${authUrl}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: args.username, password: seed.demoPassword }),
  });
  const tokens = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !tokens.access_token) throw new Error(`the IdP answered ${res.status} to the token request`);

  const local = () => openLocalAuthorizer({ policiesDir: config.policiesDir, policyName: 'rbac', directory: seed.directory });
  // Request logs at the deployed level (`info`), written to /dev/null by the harness.
  const urls: Record<string, string> = {
    'rbac local': await serve(rbacApp(config, local(), createLogger('rbac-app', 'info'))),
    bare: await serve(bareApp()),
    'same stack, no auth': await serve(sameStackNoAuth(createLogger('rbac-app', 'info'))),
    'rbac local, no request log': await serve(rbacApp(config, local(), silentLogger())),
  };
  if (args.edgeUrl) {
    urls['rbac edge'] = await serve(rbacApp(config, createEdgeAuthorizer({ url: args.edgeUrl }), createLogger('rbac-app', 'info')));
  }
  return { urls, accessToken: tokens.access_token };
}

serveParent({ start }, async () => {
  for (const server of servers) await close(server);
  for (const authorizer of authorizers) await authorizer.close();
  rmSync(dataDir, { recursive: true, force: true });
});
