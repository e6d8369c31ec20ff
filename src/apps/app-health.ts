import type { Express } from 'express';
import type { Authorizer } from '../authorizer';

/**
 * The probes every sample app serves: `/healthz` (the process answers) and `/readyz`
 * (its authorizer can decide — an embedded edge has synced or loaded its last good state,
 * the sidecar edge answers its own `/readyz`; otherwise decisions are 503, so a launcher or
 * load balancer waits on this one, and `authorizer` says which dependency it waits for).
 */
export function serveProbes(app: Express, authorizer: Authorizer): void {
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const ready = (await authorizer.ready?.()) ?? true;
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', authorizer: authorizer.kind });
  });
}
