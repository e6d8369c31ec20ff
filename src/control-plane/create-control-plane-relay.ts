import { createRelay, type Relay, type RelayDeps } from '../relay';
import type { ControlPlaneStore } from './control-plane-store';
import { requireTenantKey } from './require-tenant-key';

/**
 * Dependencies of {@link createControlPlaneRelay}: the relay's own, but the store is the
 * control plane's. Cluster mode and the management API's extensions (broadcast, drift,
 * `/metrics`) are the relay's hooks (`RelayDeps.cluster`, `RelayDeps.extensions`), filled by
 * the process that runs the control plane (src/control-plane-server), never by this folder.
 */
export type ControlPlaneRelayDeps = Omit<RelayDeps, 'store' | 'requireDiscoveryKey'> & {
  readonly store: ControlPlaneStore;
};

/**
 * The relay wired to the control plane: registrations in the control plane's database,
 * edges authenticated by their connection credentials, the management API behind the
 * tenant's Discovery API key. The relay itself knows none of these; it is handed them. The
 * edges' decision records go where `onDecisions` says (src/decision-store, plugged in by src/control-plane-server).
 */
export function createControlPlaneRelay(deps: ControlPlaneRelayDeps): Promise<Relay> {
  return createRelay({
    ...deps,
    requireDiscoveryKey: requireTenantKey(deps.store, 'discovery'),
  });
}
