import type { Server } from 'node:http';
import type { RequestHandler, Router } from 'express';
import { WebSocketServer } from 'ws';
import type { HttpError } from '../http';
import type { Logger } from '../observability';
import { MAX_FRAME_BYTES } from '../relay-protocol';
import type { CommandName, DecisionRecord, EdgeStatus, TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import { CLOSE_CODES } from './close-codes';
import { startEdgeSession } from './edge-session';
import type { EdgeSession } from './edge-session';
import { closeAllSockets } from './close-sockets';
import { createUpgradeHandler } from './handle-upgrade';
import { startHeartbeat } from './heartbeat';
import { createLastSeenBatch } from './last-seen-batch';
import { createBroadcaster, type BroadcastResult } from './broadcast';
import type { BroadcastFilter } from './parse-broadcast-request';
import type { ClusterNode, RelayClusterPlugin } from './cluster-plugin';
import type { DesiredStateLookup } from './edge-drift';
import { createManagementRouter, registrationsPage, type RegistrationsPage } from './management-router';
import { openRegistrationStore } from './registration-store';
import { openRelayDatabase } from './relay-database';
import type { DecisionSampleReply } from './pending-samples';
import { instanceNotConnected, instanceNotFound, relayClosing } from './relay-errors';
import type { EdgeLink, InstanceKey, Registration } from './registration';
import type { RelayStore } from './relay-store';

/** Dependencies of {@link createRelay}. */
export interface RelayDeps {
  readonly store: RelayStore;
  /**
   * Authenticates a management call with the tenant's Discovery API key and sets
   * `res.locals.tenantId`; the control plane supplies it.
   */
  readonly requireDiscoveryKey: RequestHandler;
  /** What each edge should run (its policy's `latest`, the central directory revision), for drift. */
  readonly desiredState: DesiredStateLookup;
  readonly logger: Logger;
  /** How long exec waits for the edge's confirmation before 504. */
  readonly execTimeoutMs: number;
  /** Ping period; a socket that missed the previous pong is terminated. */
  readonly heartbeatMs: number;
  /** Epoch-milliseconds clock for `connected_at` / `last_seen`. */
  readonly now?: () => number;
  /** How long a new socket may take to send `register` (default 5 s). */
  readonly registerTimeoutMs?: number;
  /** Commands that may wait on one edge at once (default 64); more get 429. */
  readonly maxPendingPerEdge?: number;
  /** Connected edges one broadcast may reach (default `BROADCAST_LIMITS.maxEdges`); more get 409. */
  readonly maxBroadcastEdges?: number;
  /** Sockets one edge connection may hold open at once (default {@link MAX_SOCKETS_PER_CONNECTION}). */
  readonly maxSocketsPerConnection?: number;
  /**
   * Cluster mode (`REDIS_URL`), plugged in from src/cluster: this node's id, presence registry and bus to the other
   * nodes. Without it the relay is a single node and its sockets are the whole truth. The
   * relay closes it when it closes.
   */
  readonly cluster?: RelayClusterPlugin;
  /** `METRICS_TOKEN`: shows `/metrics` per tenant to its bearer; unset, `/metrics` names no tenant to anyone. */
  readonly metricsToken?: string;
  /** Takes the decision records edges ship (docs/reference/api.md, "Decision records"); must not wait or throw. */
  readonly onDecisions?: (key: InstanceKey, records: readonly DecisionRecord[]) => void;
}

/** The relay: edge WebSocket endpoint plus the management API of docs/service-interface.md §4.2–4.3. */
export interface Relay {
  readonly managementRouter: Router;
  /** Serves the edge WebSocket on `server`'s `upgrade` event. */
  attach(server: Server): void;
  /** Sends a command to one of the tenant's instances and waits for its confirmation. Throws HttpErrors. */
  exec(tenantId: string, instanceId: string, command: CommandName): Promise<EdgeStatus>;
  /**
   * Asks one of the tenant's instances for its decision sample (docs/reference/api.md, "Dry run"),
   * with exec's errors: 404 unknown, 409 not connected, 502 edge failure, 504 timeout.
   */
  sampleDecisions(tenantId: string, instanceId: string): Promise<DecisionSampleReply>;
  /**
   * Asks one of the tenant's instances to decide `request` without recording it ("Try a
   * decision", docs/reference/api.md, "Decision records"), with exec's errors; in cluster mode
   * an edge on another node is asked through that node, as exec is.
   */
  tryDecision(tenantId: string, instanceId: string, request: TryDecisionRequest): Promise<TryDecisionResult>;
  /**
   * Sends a command to every connected edge of the tenant matching `filter`, on every node,
   * and resolves once all confirmed or the deadline (the exec timeout) passed
   * (docs/reference/api.md, "Broadcast"). Throws 429/409/503 HttpErrors.
   */
  broadcast(tenantId: string, command: CommandName, filter?: BroadcastFilter): Promise<BroadcastResult>;
  /** One page of the tenant's registrations (`page_size`, `page_token` in `query`), as §4.3 answers. Rejects with 400 for bad paging. */
  registrations(tenantId: string, query: Record<string, unknown>): Promise<RegistrationsPage>;
  /** Closes every edge socket (1001), fails pending commands, stores the disconnects and closes its database handle. */
  close(): Promise<void>;
}

/**
 * Sockets one edge connection credential may hold at once: a few replicas of one edge, plus
 * a reconnect racing its old socket's close. More are refused at the upgrade with 429.
 */
export const MAX_SOCKETS_PER_CONNECTION = 16;

/** The live-socket map key: instance ids are per tenant. */
function liveKey(tenantId: string, instanceId: string): string {
  return `${tenantId}\u0000${instanceId}`;
}

/**
 * Builds the relay once its database handle is open and, on a single node, every stored
 * registration is marked disconnected (in cluster mode other nodes hold sockets, and
 * "connected" comes from Redis); nothing listens until {@link Relay.attach}.
 */
export async function createRelay(deps: RelayDeps): Promise<Relay> {
  if (!(deps.execTimeoutMs > 0) || !(deps.heartbeatMs > 0)) throw new Error('execTimeoutMs and heartbeatMs must be positive');
  const now = deps.now ?? Date.now;
  const log = deps.logger.child({ component: 'relay' });
  const relayDb = await openRelayDatabase(deps.store, log);
  const registrations = openRegistrationStore(relayDb.db);
  try {
    // A previous process may have died with rows still marked connected.
    if (!deps.cluster) await registrations.markAllDisconnected();
  } catch (err) {
    await relayDb.close();
    throw err;
  }
  const store = relayDb.write;

  const live = new Map<string, EdgeSession>();
  const socketsPerConnection = new Map<string, number>();
  const maxSockets = deps.maxSocketsPerConnection ?? MAX_SOCKETS_PER_CONNECTION;
  const servers = new Set<Server>();
  let closing = false;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  const sessions = new WeakMap<object, EdgeSession>();
  // Pongs move last_seen in batches, one statement per tenant per 500 edges a second.
  const lastSeen = createLastSeenBatch({
    touchMany: (tenantId, instanceIds, at) => registrations.touchMany(tenantId, instanceIds, at),
    write: (what, id, work) => store(what, id, work),
    held: (key) => live.has(liveKey(key.tenantId, key.instanceId)),
    now,
  });
  const heartbeat = startHeartbeat(deps.heartbeatMs, (ws) => {
    const session = sessions.get(ws);
    const key = session?.key;
    if (session && key && live.get(liveKey(key.tenantId, key.instanceId)) === session) lastSeen.add(key);
  });

  const sessionDeps = {
    registrations,
    store,
    logger: log,
    now,
    execTimeoutMs: deps.execTimeoutMs,
    registerTimeoutMs: deps.registerTimeoutMs ?? 5000,
    maxPending: deps.maxPendingPerEdge ?? 64,
    onDecisions: deps.onDecisions,
    onRegistered(session: EdgeSession): Promise<void> | undefined {
      const key = session.key!;
      const id = liveKey(key.tenantId, key.instanceId);
      const previous = live.get(id);
      live.set(id, session);
      // An edge reconnecting after a network blip may beat the old socket's close; the newest wins.
      if (previous && previous !== session) previous.close(CLOSE_CODES.replaced, 'replaced by a newer connection');
      // Claimed before the edge hears `registered`, so from then on every node can route to it.
      return clusterNode?.claimed(session);
    },
    onClosed(session: EdgeSession) {
      const { connectionId } = session.connection;
      const open = (socketsPerConnection.get(connectionId) ?? 1) - 1;
      if (open > 0) socketsPerConnection.set(connectionId, open);
      else socketsPerConnection.delete(connectionId);
      const key = session.key;
      if (key === undefined || live.get(liveKey(key.tenantId, key.instanceId)) !== session) return;
      live.delete(liveKey(key.tenantId, key.instanceId));
      if (closing) return;
      void session.record('disconnect', (k) => registrations.markDisconnected(k, now()));
      clusterNode?.closed(session);
    },
  };

  const onUpgrade = createUpgradeHandler({
    wss,
    logger: log,
    verifyConnection: (id, secret) => deps.store.verifyConnection(id, secret),
    admit: (connection) => (socketsPerConnection.get(connection.connectionId) ?? 0) < maxSockets,
    onConnection(ws, connection) {
      if (closing) {
        ws.close(CLOSE_CODES.goingAway, 'relay shutting down');
        return;
      }
      socketsPerConnection.set(connection.connectionId, (socketsPerConnection.get(connection.connectionId) ?? 0) + 1);
      heartbeat.track(ws);
      sessions.set(ws, startEdgeSession(ws, connection, sessionDeps));
    },
  });

  const clusterNode: ClusterNode | undefined = deps.cluster
    ? deps.cluster.join({
        logger: log,
        now,
        heartbeatMs: deps.heartbeatMs,
        execTimeoutMs: deps.execTimeoutMs,
        local: (key) => live.get(liveKey(key.tenantId, key.instanceId)),
        held: () => live.values(),
        unrouted: notHeld,
      })
    : undefined;

  /** Why an instance no node holds cannot take a command: unknown to the tenant (404), or not connected (409). */
  async function notHeld(key: InstanceKey): Promise<HttpError> {
    // Ids are looked up within the caller's tenant: another tenant's instance is simply unknown.
    const registration = await registrations.get(key);
    if (closing) return relayClosing();
    return registration ? instanceNotConnected() : instanceNotFound();
  }

  /**
   * This node's live session of one of the tenant's instances; undefined when another node
   * may hold it (cluster mode: the presence registry is asked first, the database only when
   * no node holds it); otherwise the HttpError exec answers with.
   */
  async function liveSession(tenantId: string, instanceId: string): Promise<EdgeSession | undefined> {
    if (closing) throw relayClosing();
    // A socket this node holds was registered (stored) before it went live, and a connected
    // registration cannot be released: no database read needed. The key includes the tenant.
    const held = live.get(liveKey(tenantId, instanceId));
    if (held) return held;
    if (clusterNode) return undefined;
    throw await notHeld({ tenantId, instanceId });
  }

  async function exec(tenantId: string, instanceId: string, command: CommandName): Promise<EdgeStatus> {
    const session = await liveSession(tenantId, instanceId);
    // A local socket is used directly, even while Redis is down; only other nodes' edges are routed.
    return session ? session.send(command) : clusterNode!.exec({ tenantId, instanceId }, command);
  }

  async function tryDecision(tenantId: string, instanceId: string, request: TryDecisionRequest): Promise<TryDecisionResult> {
    const session = await liveSession(tenantId, instanceId);
    return session ? session.tryDecision(request) : clusterNode!.tryDecision({ tenantId, instanceId }, request);
  }

  async function sampleDecisions(tenantId: string, instanceId: string): Promise<DecisionSampleReply> {
    const session = await liveSession(tenantId, instanceId);
    return session ? session.sample() : clusterNode!.sample({ tenantId, instanceId });
  }

  /**
   * A socket is the truth about "connected" on one node (the stored flag may lag a failed
   * write); in cluster mode the presence registry says which node holds it.
   */
  async function links(tenantId: string, instanceIds: readonly string[]): Promise<EdgeLink[]> {
    const found: EdgeLink[] = new Array(instanceIds.length);
    const owners = clusterNode ? await clusterNode.owners(tenantId, instanceIds) : undefined;
    for (let i = 0; i < instanceIds.length; i += 1) {
      const local = live.has(liveKey(tenantId, instanceIds[i]!));
      if (!owners) {
        found[i] = { connected: local };
        continue;
      }
      const node = owners[i] ?? (local ? clusterNode!.node : null);
      found[i] = { connected: node !== null, node };
    }
    return found;
  }

  const broadcast = createBroadcaster({
    registrations,
    desiredState: deps.desiredState,
    links,
    local: (tenantId, instanceId) => live.get(liveKey(tenantId, instanceId)),
    ...(clusterNode ? { cluster: clusterNode } : {}),
    timeoutMs: deps.execTimeoutMs,
    ...(deps.maxBroadcastEdges === undefined ? {} : { maxEdges: deps.maxBroadcastEdges }),
    checkOpen() {
      if (closing) throw relayClosing();
    },
  });

  return {
    managementRouter: createManagementRouter({
      requireDiscoveryKey: deps.requireDiscoveryKey,
      registrations,
      links,
      exec,
      broadcast,
      desiredState: deps.desiredState,
      metricsToken: deps.metricsToken,
      async connectedRegistrations() {
        const keys = [...live.values()].map((session) => session.key!);
        const found: Registration[] = [];
        for (const key of keys) {
          const registration = await registrations.get(key);
          if (registration) found.push(registration);
        }
        return found;
      },
    }),
    attach(server) {
      servers.add(server);
      server.on('upgrade', onUpgrade);
    },
    exec,
    broadcast: (tenantId, command, filter = {}) => broadcast(tenantId, command, filter),
    sampleDecisions,
    tryDecision,
    registrations: (tenantId, query) => registrationsPage({ registrations, links, desiredState: deps.desiredState }, tenantId, query),
    async close() {
      closing = true;
      heartbeat.stop();
      lastSeen.stop();
      for (const server of servers) server.off('upgrade', onUpgrade);
      // Other nodes stop routing here before the sockets close (the edges reconnect elsewhere).
      await clusterNode?.close().catch((err: unknown) => log.warn({ err: (err as Error).message }, 'leaving the cluster failed'));
      const disconnects: Promise<boolean>[] = [];
      for (const session of live.values()) disconnects.push(session.record('disconnect', (k) => registrations.markDisconnected(k, now())));
      await closeAllSockets(wss, CLOSE_CODES.goingAway, 'relay shutting down');
      live.clear();
      await Promise.all(disconnects);
      await relayDb.close();
    },
  };
}
