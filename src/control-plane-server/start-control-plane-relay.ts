import { connectCluster } from '../cluster';
import { createControlPlaneRelay, type ControlPlaneRelayDeps } from '../control-plane';
import type { Relay } from '../relay';

/** Cluster mode of the control plane's relay: `REDIS_URL` and `RELAY_NODE_ID`. */
export interface ControlPlaneClusterOptions {
  readonly redisUrl: string;
  /** Unset: `<hostname>-<pid>-<random>`. */
  readonly nodeId?: string;
  /** Key and channel prefix in Redis (tests isolate themselves with their own). */
  readonly prefix?: string;
}

/** Dependencies of {@link startControlPlaneRelay}. */
export type ControlPlaneServerRelayDeps = Omit<ControlPlaneRelayDeps, 'cluster'> & {
  /** Given: this relay is one node of a cluster sharing registrations through Redis. */
  readonly cluster?: ControlPlaneClusterOptions;
};

/**
 * The control plane's relay as its process runs it: in cluster mode first connected to Redis
 * (src/cluster), which then plugs into the relay's hook (`RelayDeps.cluster`); the relay
 * closes that connection with itself, and this closes it when the relay fails to start.
 */
export async function startControlPlaneRelay(deps: ControlPlaneServerRelayDeps): Promise<Relay> {
  const { cluster: options, ...relayDeps } = deps;
  const cluster = options
    ? await connectCluster({
        url: options.redisUrl,
        heartbeatMs: deps.heartbeatMs,
        logger: deps.logger,
        ...(options.nodeId === undefined ? {} : { node: options.nodeId }),
        ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
      })
    : undefined;
  try {
    return await createControlPlaneRelay({ ...relayDeps, ...(cluster ? { cluster } : {}) });
  } catch (err) {
    await cluster?.close();
    throw err;
  }
}
