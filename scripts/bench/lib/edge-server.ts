// Bench child: a real edge authorizer (createEdge) connected to the bench control plane,
// serving its decision API, plus a bare Express JSON endpoint as the baseline.
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createEdge, type Edge } from '../../../src/edge';
import { baseUrl, close, listen } from '../../../src/http';
import { createLogger } from '../../../src/observability';
import { serveParent } from './child-endpoint';

/** Where the edge should connect, with which connection credentials. */
export interface EdgeStartArgs {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
}

export interface EdgeInfo {
  readonly edgeUrl: string;
  readonly bareUrl: string;
  readonly instanceId: string;
}

const HOUR = 3_600_000;
const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-edge-'));
let running: { edge: Edge; servers: Server[] } | undefined;

/** The baseline: Express parsing the same JSON body and answering the same JSON shape. */
function bareJsonApp(): express.Express {
  const app = express();
  app.post('/api/v2/authz/is', express.json({ limit: '16kb' }), (req, res) => {
    const decisions = (req.body as { policy_context?: { decisions?: unknown[] } }).policy_context?.decisions ?? [];
    res.json({ decisions: decisions.map(() => ({ decision: 'allowed', is: true })) });
  });
  return app;
}

async function start(args: EdgeStartArgs): Promise<EdgeInfo> {
  const edge = createEdge({
    relayUrl: args.relayUrl,
    connectionId: args.connectionId,
    connectionSecret: args.connectionSecret,
    dataDir,
    // Timers out of the way: only the benchmark's commands sync.
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: 24 * HOUR,
    // JWT identities are not used by the benchmark; jose fetches this JWKS only on demand.
    jwt: { issuer: 'http://127.0.0.1:9', jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json', audience: 'urn:outpost:sample-api' },
    logger: createLogger('edge', 'info'),
    hostname: 'bench-edge',
    version: 'bench',
  });
  await edge.start();
  const outcomes = [await edge.runCommand('discovery'), await edge.runCommand('sync_edge_directory')];
  if (!outcomes.every((o) => o.ok)) throw new Error('the edge could not load its policy and directory');
  const servers = [await listen(edge.app, 0, '127.0.0.1'), await listen(bareJsonApp(), 0, '127.0.0.1')];
  running = { edge, servers };
  return { edgeUrl: baseUrl(servers[0] as Server), bareUrl: baseUrl(servers[1] as Server), instanceId: edge.instanceId };
}

serveParent({ start }, async () => {
  if (running) {
    for (const server of running.servers) await close(server);
    await running.edge.close();
  }
  rmSync(dataDir, { recursive: true, force: true });
});
