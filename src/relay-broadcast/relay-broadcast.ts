import type { DesiredStateLookup } from '../edge-drift';
import { EXEC_BODY_LIMIT, NO_STORE, type CommandRoute, type RelayExtension } from '../relay';
import { BROADCAST_PATH, type CommandName } from '../relay-protocol';
import { createBroadcaster, type Broadcast, type BroadcastResult } from './broadcast';
import { parseBroadcastRequest, type BroadcastFilter } from './parse-broadcast-request';

/** Options of {@link relayBroadcast}. */
export interface RelayBroadcastOptions {
  /** What each edge should run, for `filter.stale_only` (src/edge-drift). */
  readonly desiredState: DesiredStateLookup;
  /** Connected edges one broadcast may reach (default `BROADCAST_LIMITS.maxEdges`); more get 409. */
  readonly maxEdges?: number;
}

/** The broadcast plug-in: its relay extension, and the broadcast itself for the control plane's own callers. */
export interface RelayBroadcast {
  /** Pass it in `RelayDeps.extensions`: it serves `POST …/broadcast` beside exec (and on the bare exec). */
  readonly extension: RelayExtension;
  /**
   * Sends a command to every connected edge of the tenant matching `filter`, on every node,
   * and resolves once all confirmed or the deadline (the exec timeout) passed
   * (docs/reference/api.md, "Broadcast"). Rejects with 429/409/503 HttpErrors, and before the
   * relay started the extension with a plain Error.
   */
  broadcast(tenantId: string, command: CommandName, filter?: BroadcastFilter): Promise<BroadcastResult>;
}

/** `POST …/broadcast` (docs/reference/api.md, "Broadcast") as a command route, exec's body limit and headers. */
function broadcastRoute(broadcast: Broadcast): CommandRoute {
  return {
    path: BROADCAST_PATH,
    limitBytes: EXEC_BODY_LIMIT,
    async run(tenantId, body) {
      const { command, filter } = parseBroadcastRequest(body);
      return { headers: NO_STORE, body: { result: await broadcast(tenantId, command, filter) } };
    },
  };
}

/**
 * The tenant-wide command, plugged into the relay's extension hook: once the relay starts it,
 * it reads the registrations and links through the relay's view, sends to this node's edges
 * and, in cluster mode, routes the other nodes' share through the cluster node.
 */
export function relayBroadcast(options: RelayBroadcastOptions): RelayBroadcast {
  let run: Broadcast | undefined;
  return {
    extension: {
      name: 'broadcast',
      start(view) {
        run = createBroadcaster({
          registrations: view.registrations,
          links: view.links,
          local: view.local,
          ...(view.cluster ? { cluster: view.cluster } : {}),
          checkOpen: view.checkOpen,
          timeoutMs: view.execTimeoutMs,
          desiredState: options.desiredState,
          ...(options.maxEdges === undefined ? {} : { maxEdges: options.maxEdges }),
        });
        return { commandRoutes: [broadcastRoute(run)] };
      },
    },
    async broadcast(tenantId, command, filter = {}) {
      if (run === undefined) throw new Error('the broadcast plug-in has not been started: pass its extension to createRelay');
      return run(tenantId, command, filter);
    },
  };
}
