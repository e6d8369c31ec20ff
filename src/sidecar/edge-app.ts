import type { RequestListener } from 'node:http';
import { createApp, finishApp, OPENAPI_PATH, serveOpenApi } from '../http';
import type { Logger } from '../observability';
import { isEngineHealthy } from '../policy';
import { createAuthzenMetadataRouter, createAuthzenRoutes, createAuthzenSearchRoutes } from '../authzen';
import type { EdgeRuntime, DecisionRoute } from '../edge';
import { createDecisionListener } from './decision-server';
import { EDGE_OPENAPI } from './edge-openapi';
import { createIsRoute } from './is-route';
import type { VerifyJwtIdentity } from './verify-identity';

/**
 * The sidecar edge's HTTP API. The decision endpoints (Topaz-shaped `is`, AuthZEN
 * evaluation and evaluations) are served directly on `node:http`; the rest by Express:
 * liveness (`/healthz`: the process answers), readiness (`/readyz`: a policy image and a
 * directory are loaded and the Cedar engine still holds them, so decisions can be made —
 * a load balancer keeps traffic away otherwise, rather than have it served from stale
 * state), metrics, the OpenAPI document and the AuthZEN metadata.
 */
export function createEdgeApp(deps: { runtime: EdgeRuntime; verifyJwt: VerifyJwtIdentity; logger: Logger; publicUrl?: string }): RequestListener {
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
    // `engine: false` appears only when Cedar lost the images it held (docs/guide/02-policies.md, "Asking an edge directly").
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', policy, directory, ...(engine ? {} : { engine }) });
  });
  app.get(OPENAPI_PATH, serveOpenApi(EDGE_OPENAPI));
  app.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4; charset=utf-8').send(metrics());
  });
  app.use(createAuthzenMetadataRouter(deps.publicUrl));

  return createDecisionListener(createDecisionRoutes(deps), finishApp(app, logger, 'api'), logger);
}

/** The decision and search endpoints as routes independent of any HTTP server (the sidecar serves them on `node:http`). */
export function createDecisionRoutes(deps: { runtime: EdgeRuntime; verifyJwt: VerifyJwtIdentity; logger: Logger }): DecisionRoute[] {
  return [createIsRoute(deps), ...createAuthzenRoutes(deps), ...createAuthzenSearchRoutes(deps)];
}
