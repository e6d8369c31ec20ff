import { connectCluster } from '../cluster';
import { createControlPlaneRelay, type ControlPlaneRelayDeps } from '../control-plane';
import { createDecisionIngest, openDecisionRepository } from '../decision-store';
import type { Relay } from '../relay';
import { relayPlatform, type RelayPlatform, type RelayPlatformOptions } from './relay-platform';

/** Cluster mode of the control plane's relay: `REDIS_URL` and `RELAY_NODE_ID`. */
export interface ControlPlaneClusterOptions {
  readonly redisUrl: string;
  /** Unset: `<hostname>-<pid>-<random>`. */
  readonly nodeId?: string;
  /** Key and channel prefix in Redis (tests isolate themselves with their own). */
  readonly prefix?: string;
}

/** Dependencies of {@link startControlPlaneRelay}. */
export type ControlPlaneServerRelayDeps = Omit<ControlPlaneRelayDeps, 'cluster' | 'onDecisions' | 'extensions'> &
  RelayPlatformOptions & {
    /** Given: this relay is one node of a cluster sharing registrations through Redis. */
    readonly cluster?: ControlPlaneClusterOptions;
  };

/** The control plane's relay with its platform: the relay, and the broadcast its plug-in serves. */
export type ControlPlaneRelay = Relay & Pick<RelayPlatform, 'broadcast'>;

/**
 * The control plane's relay as its process runs it, with the platform in its hooks: the
 * tenant-wide broadcast, drift and `/metrics` (`RelayDeps.extensions`, relay-platform.ts), the
 * edges' decision records stored per tenant (src/decision-store, `RelayDeps.onDecisions`),
 * and in cluster mode the Redis connection it shares with the other nodes (src/cluster,
 * `RelayDeps.cluster`), which the relay closes with itself, and this when the relay fails to
 * start. Closing the relay waits for the records it received to be stored.
 */
export async function startControlPlaneRelay(deps: ControlPlaneServerRelayDeps): Promise<ControlPlaneRelay> {
  const { cluster: options, metricsToken, maxBroadcastEdges, ...relayDeps } = deps;
  const platform = relayPlatform(deps.store, {
    ...(metricsToken === undefined ? {} : { metricsToken }),
    ...(maxBroadcastEdges === undefined ? {} : { maxBroadcastEdges }),
  });
  const cluster = options
    ? await connectCluster({
        url: options.redisUrl,
        heartbeatMs: deps.heartbeatMs,
        logger: deps.logger,
        ...(options.nodeId === undefined ? {} : { node: options.nodeId }),
        ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      })
    : undefined;
  const ingest = createDecisionIngest({ decisions: openDecisionRepository(deps.store), logger: deps.logger });
  let relay: Relay;
  try {
    relay = await createControlPlaneRelay({ ...relayDeps, extensions: platform.extensions, onDecisions: ingest.accept, ...(cluster ? { cluster } : {}) });
  } catch (err) {
    await cluster?.close();
    throw err;
  }
  return {
    ...relay,
    broadcast: platform.broadcast,
    // Records already received are stored before the caller closes the store.
    async close() {
      await relay.close();
      await ingest.idle();
    },
  };
}
