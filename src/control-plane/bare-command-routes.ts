import type { BareJsonRoute } from '../http';
import { commandRoutes, type RelayCommands } from '../relay';
import type { ControlPlaneStore } from './control-plane-store';
import { authenticateTenant } from './require-tenant-key';

/**
 * Exec and broadcast for the bare `node:http` path (src/http/bare-json-routes.ts), in their
 * Express twins' order: the Discovery API key first, checked against the store as of this
 * call (a rotated key is refused on every node at once) and before any byte of the body, then
 * the body, then the command for that tenant alone.
 */
export function bareCommandRoutes(store: ControlPlaneStore, relay: RelayCommands): BareJsonRoute[] {
  return commandRoutes(relay).map((route) => ({
    path: route.path,
    limitBytes: route.limitBytes,
    async handle(request) {
      const tenantId = await authenticateTenant(store, 'discovery', request.headers);
      return route.run(tenantId, await request.readJson());
    },
  }));
}
