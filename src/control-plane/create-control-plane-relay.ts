import { createRelay, type Relay, type RelayDeps } from '../relay';
import type { ControlPlaneStore } from './control-plane-store';
import { requireTenantKey } from './require-tenant-key';

/**
 * The relay wired to the control plane: registrations in the control plane's database,
 * edges authenticated by their connection credentials, the management API behind the
 * tenant's Discovery API key. The relay itself knows none of these; it is handed them.
 */
export function createControlPlaneRelay(
  deps: Omit<RelayDeps, 'store' | 'requireDiscoveryKey'> & { readonly store: ControlPlaneStore },
): Relay {
  return createRelay({ ...deps, requireDiscoveryKey: requireTenantKey(deps.store, 'discovery') });
}
