import { createRelay, type DesiredEdgeState, type Relay, type RelayDeps } from '../relay';
import type { ControlPlaneStore } from './control-plane-store';
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

/**
 * Dependencies of {@link createControlPlaneRelay}: the relay's own, but the store is the
 * control plane's. Cluster mode is the relay's hook (`RelayDeps.cluster`), filled by the
 * process that runs the control plane (src/control-plane-server), never by this folder.
 */
export type ControlPlaneRelayDeps = Omit<RelayDeps, 'store' | 'requireDiscoveryKey' | 'desiredState'> & {
  readonly store: ControlPlaneStore;
};

/**
 * The relay wired to the control plane: registrations in the control plane's database,
 * edges authenticated by their connection credentials, the management API behind the
 * tenant's Discovery API key, drift measured against the registry and the central
 * directory. The relay itself knows none of these; it is handed them. The edges' decision
 * records go where `onDecisions` says (src/decision-store, plugged in by src/control-plane-server).
 */
export function createControlPlaneRelay(deps: ControlPlaneRelayDeps): Promise<Relay> {
  return createRelay({
    ...deps,
    requireDiscoveryKey: requireTenantKey(deps.store, 'discovery'),
    desiredState: (tenantId, connectionId) => desiredState(deps.store, tenantId, connectionId),
  });
}
