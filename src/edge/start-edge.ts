import type { Server } from 'node:http';
import { join } from 'node:path';
import { z } from 'zod';
import type { Config } from '../config';
import { close, listen } from '../http';
import type { Logger } from '../observability';
import { createEdge, type Edge } from './create-edge';
import { readJsonFile } from '../files';

const demoTenantSchema = z.object({ connection_id: z.string().min(1), connection_secret: z.string().min(1) });

/**
 * The edge's connection credentials: `EDGE_CONNECTION_ID`/`EDGE_CONNECTION_SECRET`, or
 * else the demo tenant file the control plane writes on first start.
 */
export function edgeCredentials(config: Config): { connectionId: string; connectionSecret: string } {
  const { connectionId, connectionSecret } = config.edge;
  if (connectionId && connectionSecret) return { connectionId, connectionSecret };
  const file = join(config.dataDir, 'demo-tenant.json');
  const parsed = demoTenantSchema.safeParse(readJsonFile(file));
  if (!parsed.success) {
    throw new Error(`no edge connection credentials: set EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET, or start the control plane first (${file})`);
  }
  return { connectionId: parsed.data.connection_id, connectionSecret: parsed.data.connection_secret };
}

/**
 * Builds an edge from the configuration (data in `<dataDir>/edge`), starts it and
 * listens on `EDGE_PORT`. For entry files; `stop()` closes the server, then the edge.
 */
export async function startEdgeFromConfig(
  config: Config,
  logger: Logger,
  options: { version?: string } = {},
): Promise<{ edge: Edge; server: Server; stop(): Promise<void> }> {
  const edge = createEdge({
    relayUrl: config.controlPlane.url,
    ...edgeCredentials(config),
    dataDir: join(config.dataDir, 'edge'),
    discoveryIntervalMs: config.edge.discoveryInterval * 1000,
    directorySyncIntervalMs: config.edge.directorySyncInterval * 1000,
    fullSyncIntervalMs: config.edge.fullSyncInterval * 1000,
    jwt: { issuer: config.idp.issuer, jwksUri: `${config.idp.url}/.well-known/jwks.json`, audience: config.idp.apiAudience },
    logger,
    ...(options.version ? { version: options.version } : {}),
  });
  await edge.start();
  const server = await listen(edge.app, config.edge.port, config.host);
  logger.info({ port: config.edge.port, instance_id: edge.instanceId }, 'edge authorizer listening');
  return {
    edge,
    server,
    async stop() {
      await close(server);
      await edge.close();
    },
  };
}
