import type { ClusterNode } from './cluster-plugin';
import type { EdgeLink } from './registration';
import type { RelayState } from './relay-state';

/** Whether each of the tenant's instances is connected and, in cluster mode, which node holds it. */
export type Links = (tenantId: string, instanceIds: readonly string[]) => Promise<EdgeLink[]>;

/**
 * A socket is the truth about "connected" on one node (the stored flag may lag a failed
 * write); in cluster mode the presence registry says which node holds it.
 */
export function createLinks(state: RelayState, cluster: ClusterNode | undefined): Links {
  return async function links(tenantId, instanceIds) {
    const found: EdgeLink[] = new Array(instanceIds.length);
    const owners = cluster ? await cluster.owners(tenantId, instanceIds) : undefined;
    for (let i = 0; i < instanceIds.length; i += 1) {
      const local = state.session({ tenantId, instanceId: instanceIds[i]! }) !== undefined;
      if (!owners) {
        found[i] = { connected: local };
        continue;
      }
      const node = owners[i] ?? (local ? cluster!.node : null);
      found[i] = { connected: node !== null, node };
    }
    return found;
  };
}
