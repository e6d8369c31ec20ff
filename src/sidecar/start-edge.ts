import type { Server } from 'node:http';
import { join } from 'node:path';
import { sidecarConnection, type Config } from '../config';
import { close, listen } from '../http';
import type { Logger } from '../observability';
import { createEdge, type Edge } from './create-edge';
import { decisionRecords } from '../decision-records';
import { loadPinnedSigningKeys } from '../signed-images';

/**
 * Builds an edge from the configuration (data in `<dataDir>/edge`, pinned signing keys from
 * `EDGE_POLICY_SIGNING_KEYS` when set, decision records plugged in), listens on `EDGE_PORT`
 * and only then starts it. The order matters: a second edge started on the same data
 * directory has the same instance id, and once it dialled the relay it would replace the
 * live edge's session; binding the port first makes it fail (EADDRINUSE) before that.
 * For entry files; `stop()` closes the server, then the edge.
 */
export async function startEdgeFromConfig(
  config: Config,
  logger: Logger,
  options: { version?: string } = {},
): Promise<{ edge: Edge; server: Server; stop(): Promise<void> }> {
  const keysFile = config.edge.policySigningKeysFile;
  // EDGE_CONNECTION_ID/_SECRET, or the demo tenant file.
  const { connectionId, connectionSecret } = sidecarConnection(config);
  const edge = createEdge({
    relayUrl: config.controlPlane.url,
    connectionId,
    connectionSecret,
    dataDir: join(config.dataDir, 'edge'),
    discoveryIntervalMs: config.edge.discoveryInterval * 1000,
    directorySyncIntervalMs: config.edge.directorySyncInterval * 1000,
    fullSyncIntervalMs: config.edge.fullSyncInterval * 1000,
    // The same settings the apps verify with (CLOCK_TOLERANCE included), so both answer alike.
    jwt: {
      issuer: config.idp.issuer,
      jwksUri: `${config.idp.url}/.well-known/jwks.json`,
      audience: config.idp.apiAudience,
      clockToleranceSec: config.apps.clockTolerance,
    },
    publicUrl: config.edge.url,
    // The sidecar's decisions become decision records in the console, as the apps' do.
    plugins: [decisionRecords({ app: 'sidecar' })],
    ...(keysFile === undefined ? {} : { policySigningKeys: loadPinnedSigningKeys(keysFile) }),
    logger,
    ...(options.version ? { version: options.version } : {}),
  });
  let server: Server;
  try {
    server = await listen(edge.app, config.edge.port, config.host);
  } catch (err) {
    await edge.close();
    throw err;
  }
  try {
    await edge.start();
  } catch (err) {
    await close(server);
    throw err;
  }
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
