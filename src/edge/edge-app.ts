import type { Express } from 'express';
import { createApp, finishApp, OPENAPI_PATH, serveOpenApi } from '../http';
import type { Logger } from '../observability';
import { isEngineHealthy } from '../policy';
import { createAuthzRouter } from './authz-router';
import { createAuthzenRouter } from './authzen-router';
import type { EdgeRuntime } from './create-edge-runtime';
import { EDGE_OPENAPI } from './edge-openapi';
import type { VerifyJwtIdentity } from './verify-identity';

/**
 * The sidecar edge's HTTP API: the Topaz-shaped and AuthZEN decision endpoints, liveness
 * (`/healthz`: the process answers), readiness (`/readyz`: a policy image and a directory
 * are loaded and the Cedar engine still holds them, so decisions can be made — a load
 * balancer keeps traffic away otherwise, rather than have it served from stale state)
 * and metrics.
 */
export function createEdgeApp(deps: { runtime: EdgeRuntime; verifyJwt: VerifyJwtIdentity; logger: Logger; publicUrl?: string }): Express {
  const { runtime, logger } = deps;
  const { state, metrics } = runtime;
  const app = createApp(logger);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const policy = state.policy !== undefined;
    const directory = state.directory !== undefined;
    const engine = isEngineHealthy();
    const ready = policy && directory && engine;
    // `engine: false` appears only when Cedar lost the images it held (see the README).
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', policy, directory, ...(engine ? {} : { engine }) });
  });
  app.get(OPENAPI_PATH, serveOpenApi(EDGE_OPENAPI));
  app.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render());
  });
  app.use(createAuthzRouter(deps));
  app.use(createAuthzenRouter(deps));

  return finishApp(app, logger, 'api');
}
