import { connectCluster } from '../cluster';
import { createRelay, type DesiredEdgeState, type Relay, type RelayDeps } from '../relay';
import type { ControlPlaneStore } from './control-plane-store';
import { createDecisionIngest } from './ingest-decisions';
import { requireTenantKey } from './require-tenant-key';

/**
 * What an edge of this connection should run: the `latest` image of the policy the
 * connection serves and the tenant's central directory revision (null where none exists).
 */
async function desiredState(store: ControlPlaneStore, tenantId: string, connectionId: string): Promise<DesiredEdgeState> {
  const policyName = await store.tenants.connectionPolicy(connectionId);
  return {
    policyDigest: (policyName === undefined ? undefined : await store.images.taggedDigest(tenantId, policyName)) ?? null,
    directoryRevision: (await store.directory.revision(tenantId)) ?? null,
  };
}

/** Cluster mode of the control plane's relay: `REDIS_URL` and `RELAY_NODE_ID`. */
export interface ControlPlaneClusterOptions {
  readonly redisUrl: string;
  /** Unset: `<hostname>-<pid>-<random>`. */
  readonly nodeId?: string;
  /** Key and channel prefix in Redis (tests isolate themselves with their own). */
  readonly prefix?: string;
}

/** Dependencies of {@link createControlPlaneRelay}. */
export type ControlPlaneRelayDeps = Omit<RelayDeps, 'store' | 'requireDiscoveryKey' | 'desiredState' | 'cluster'> & {
  readonly store: ControlPlaneStore;
  /** Given: this relay is one node of a cluster sharing registrations through Redis. */
  readonly cluster?: ControlPlaneClusterOptions;
};

/**
 * The relay wired to the control plane: registrations in the control plane's database,
 * edges authenticated by their connection credentials, the management API behind the
 * tenant's Discovery API key, drift measured against the registry and the central
 * directory, in cluster mode the Redis connection it shares with the other nodes, and the
 * edges' decision records stored per tenant (docs/reference/api.md, "Decision records").
 * The relay itself knows none of these; it is handed them.
 */
export async function createControlPlaneRelay(deps: ControlPlaneRelayDeps): Promise<Relay> {
  const { cluster: clusterOptions, ...relayDeps } = deps;
  const cluster = clusterOptions
    ? await connectCluster({
        url: clusterOptions.redisUrl,
        heartbeatMs: deps.heartbeatMs,
        logger: deps.logger,
        ...(clusterOptions.nodeId === undefined ? {} : { node: clusterOptions.nodeId }),
        ...(clusterOptions.prefix === undefined ? {} : { prefix: clusterOptions.prefix }),
      })
    : undefined;
  try {
    const ingest = createDecisionIngest({ decisions: deps.store.decisions, logger: deps.logger });
    const relay = await createRelay({
      onDecisions: ingest.accept,
      ...relayDeps,
      ...(cluster ? { cluster } : {}),
      requireDiscoveryKey: requireTenantKey(deps.store, 'discovery'),
      desiredState: (tenantId, connectionId) => desiredState(deps.store, tenantId, connectionId),
    });
    return {
      ...relay,
      // Records already received are stored before the caller closes the store.
      async close() {
        await relay.close();
        await ingest.idle();
      },
    };
  } catch (err) {
    await cluster?.close();
    throw err;
  }
}
