import type { Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { MAX_FRAME_BYTES } from '../relay-protocol';
import type { ClusterNode } from './cluster-plugin';
import { closeRelay } from './close-relay';
import { startHeartbeat } from './heartbeat';
import { createLastSeenBatch } from './last-seen-batch';
import { commandRoutesOf, createManagementRouter, registrationsPage } from './management-router';
import { openRegistrationStore } from './registration-store';
import { MAX_SOCKETS_PER_CONNECTION, type Relay, type RelayDeps } from './relay';
import { openRelayDatabase } from './relay-database';
import { createRelayExec, whyNotHeld } from './relay-exec';
import type { RelayView } from './relay-extension';
import { createLinks } from './relay-registrations';
import { createEdgeUpgrade } from './relay-upgrade';
import { RelayState } from './relay-state';

/**
 * Builds the relay once its database handle is open and, on a single node, every stored
 * registration is marked disconnected (in cluster mode other nodes hold sockets, and
 * "connected" comes from Redis); nothing listens until {@link Relay.attach}. Its state lives
 * in one {@link RelayState}; the handlers (upgrade and sessions, exec, registrations, close)
 * are modules of their own.
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
  const state = new RelayState();
  const servers = new Set<Server>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES, perMessageDeflate: false });
  // Pongs move last_seen in batches, one statement per tenant per 500 edges a second.
  const lastSeen = createLastSeenBatch({
    touchMany: (tenantId, instanceIds, at) => registrations.touchMany(tenantId, instanceIds, at),
    write: (what, id, work) => store(what, id, work),
    held: (key) => state.session(key) !== undefined,
    now,
  });
  const heartbeat = startHeartbeat(deps.heartbeatMs, (ws) => {
    const session = state.sessionOn(ws);
    if (session && state.isLive(session)) lastSeen.add(session.key!);
  });
  const cluster: ClusterNode | undefined = deps.cluster?.join({
    logger: log,
    now,
    heartbeatMs: deps.heartbeatMs,
    execTimeoutMs: deps.execTimeoutMs,
    local: (key) => state.session(key),
    held: () => state.sessions(),
    unrouted: (key) => whyNotHeld({ state, registrations }, key),
  });
  const onUpgrade = createEdgeUpgrade({
    state,
    wss,
    heartbeat,
    relayStore: deps.store,
    registrations,
    store,
    logger: log,
    now,
    cluster,
    maxSocketsPerConnection: deps.maxSocketsPerConnection ?? MAX_SOCKETS_PER_CONNECTION,
    execTimeoutMs: deps.execTimeoutMs,
    registerTimeoutMs: deps.registerTimeoutMs ?? 5000,
    maxPendingPerEdge: deps.maxPendingPerEdge ?? 64,
    onDecisions: deps.onDecisions,
  });
  const links = createLinks(state, cluster);
  const { exec, tryDecision, sampleDecisions } = createRelayExec({ state, registrations, cluster });
  // The platform's areas over the management API (broadcast, drift, /metrics): a read and send view, no writes.
  const view: RelayView = {
    registrations,
    links,
    local: (key) => state.session(key),
    held: () => state.sessions(),
    ...(cluster ? { cluster } : {}),
    execTimeoutMs: deps.execTimeoutMs,
    checkOpen: () => state.checkRunning(),
    requireDiscoveryKey: deps.requireDiscoveryKey,
  };
  const extensions = (deps.extensions ?? []).map((extension) => extension.start(view));
  const commandRoutes = commandRoutesOf({ exec, extensions });

  return {
    managementRouter: createManagementRouter({ requireDiscoveryKey: deps.requireDiscoveryKey, registrations, links, commandRoutes, extensions }),
    commandRoutes,
    attach(server) {
      servers.add(server);
      server.on('upgrade', onUpgrade);
    },
    exec,
    sampleDecisions,
    tryDecision,
    registrations: (tenantId, query) => registrationsPage({ registrations, links, extensions }, tenantId, query),
    close: () =>
      closeRelay({ state, wss, servers, onUpgrade, timers: [heartbeat, lastSeen], cluster, registrations, now, log, closeDatabase: () => relayDb.close() }),
  };
}
