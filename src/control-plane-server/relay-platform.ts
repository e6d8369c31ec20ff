import type { ControlPlaneStore } from '../control-plane';
import { edgeDriftExtension, type DesiredEdgeState, type DesiredStateLookup } from '../edge-drift';
import type { RelayExtension } from '../relay';
import { relayBroadcast, type RelayBroadcast } from '../relay-broadcast';

/** Options of {@link relayPlatform}: `METRICS_TOKEN`, and a bound tests lower. */
export interface RelayPlatformOptions {
  /** `METRICS_TOKEN`: shows `/metrics` per tenant to its bearer; unset, `/metrics` names no tenant to anyone. */
  readonly metricsToken?: string;
  /** Connected edges one broadcast may reach (default `BROADCAST_LIMITS.maxEdges`); more get 409. */
  readonly maxBroadcastEdges?: number;
}

/** The relay's platform as the control plane's process plugs it in, and the broadcast for its own callers. */
export interface RelayPlatform {
  /** For `RelayDeps.extensions`: broadcast, then drift and `/metrics` (the listing's fields in today's order). */
  readonly extensions: readonly RelayExtension[];
  /** The tenant-wide broadcast, for push on change and the console's "Sync all". */
  readonly broadcast: RelayBroadcast['broadcast'];
}

/**
 * What an edge of this connection should run: the `latest` image of the policy the
 * connection serves and the tenant's central directory revision (null where none exists).
 */
export function storeDesiredState(store: ControlPlaneStore): DesiredStateLookup {
  return async (tenantId, connectionId): Promise<DesiredEdgeState> => {
    const policyName = await store.tenants.connectionPolicy(connectionId);
    return {
      policyDigest: (policyName === undefined ? undefined : await store.images.taggedDigest(tenantId, policyName)) ?? null,
      directoryRevision: (await store.directory.revision(tenantId)) ?? null,
    };
  };
}

/**
 * The relay's platform areas over the management API, measured against the control plane's
 * registry and central directory: the tenant-wide broadcast (src/relay-broadcast), drift in
 * the registrations listing and `/metrics` (src/edge-drift).
 */
export function relayPlatform(store: ControlPlaneStore, options: RelayPlatformOptions = {}): RelayPlatform {
  const desiredState = storeDesiredState(store);
  const broadcast = relayBroadcast({ desiredState, ...(options.maxBroadcastEdges === undefined ? {} : { maxEdges: options.maxBroadcastEdges }) });
  return {
    extensions: [broadcast.extension, edgeDriftExtension({ desiredState, ...(options.metricsToken === undefined ? {} : { metricsToken: options.metricsToken }) })],
    broadcast: broadcast.broadcast,
  };
}
