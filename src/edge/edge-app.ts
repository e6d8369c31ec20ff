import type { Express } from 'express';
import type { LocalAuthorizer } from '../decision';
import { createApp, finishApp } from '../http';
import type { Logger } from '../observability';
import { createAuthzRouter } from './authz-router';
import type { EdgeMetrics } from './edge-metrics';
import type { EdgeState } from './edge-state';
import type { VerifyJwtIdentity } from './verify-identity';

/**
 * The edge's HTTP API: the decision endpoint, liveness (`/healthz`: the process
 * answers), readiness (`/readyz`: a policy image and a directory are loaded, so
 * decisions can be made — a load balancer keeps traffic away until then) and metrics.
 */
export function createEdgeApp(deps: {
  state: EdgeState;
  authorizer: LocalAuthorizer;
  verifyJwt: VerifyJwtIdentity;
  metrics: EdgeMetrics;
  logger: Logger;
}): Express {
  const { state, metrics, logger } = deps;
  const app = createApp(logger);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', (_req, res) => {
    const policy = state.policy !== undefined;
    const directory = state.directory !== undefined;
    const ready = policy && directory;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', policy, directory });
  });
  app.get('/metrics', (_req, res) => {
    res.type('text/plain; version=0.0.4; charset=utf-8').send(metrics.render());
  });
  app.use(createAuthzRouter(deps));

  return finishApp(app, logger, 'api');
}
