import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Logger } from '../observability';
import type { DecisionRecord } from '../relay-protocol';
import { CLOSE_CODES } from './close-codes';
import type { ClusterNode } from './cluster-plugin';
import type { EdgeSession, EdgeSessionDeps } from './edge-session';
import { createUpgradeHandler } from './handle-upgrade';
import type { Heartbeat } from './heartbeat';
import type { InstanceKey } from './registration';
import type { RegistrationStore } from './registration-store';
import type { RegistrationWrite } from './relay-database';
import type { RelayState } from './relay-state';
import type { RelayStore } from './relay-store';
import { startEdgeSession } from './start-edge-session';

/** What {@link createEdgeUpgrade} wires together. */
export interface RelayUpgradeDeps {
  readonly state: RelayState;
  readonly wss: WebSocketServer;
  readonly heartbeat: Heartbeat;
  readonly relayStore: RelayStore;
  readonly registrations: RegistrationStore;
  readonly store: RegistrationWrite;
  readonly logger: Logger;
  readonly now: () => number;
  readonly cluster: ClusterNode | undefined;
  readonly maxSocketsPerConnection: number;
  readonly execTimeoutMs: number;
  readonly registerTimeoutMs: number;
  readonly maxPendingPerEdge: number;
  readonly onDecisions: ((key: InstanceKey, records: readonly DecisionRecord[]) => void) | undefined;
}

/**
 * The relay's `upgrade` listener and the life of each session it starts: an authenticated
 * socket (within its connection's cap) gets a session; a registered one becomes its instance's
 * live session, replacing an older socket; a closed one is forgotten and its disconnect stored
 * (unless the relay is closing: the close stores them all).
 */
export function createEdgeUpgrade(deps: RelayUpgradeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { state, cluster, registrations, now } = deps;
  const sessionDeps: EdgeSessionDeps = {
    registrations,
    store: deps.store,
    logger: deps.logger,
    now,
    execTimeoutMs: deps.execTimeoutMs,
    registerTimeoutMs: deps.registerTimeoutMs,
    maxPending: deps.maxPendingPerEdge,
    onDecisions: deps.onDecisions,
    onRegistered(session) {
      const previous = state.goLive(session.key!, session);
      // An edge reconnecting after a network blip may beat the old socket's close; the newest wins.
      previous?.close(CLOSE_CODES.replaced, 'replaced by a newer connection');
      // Claimed before the edge hears `registered`, so from then on every node can route to it.
      return cluster?.claimed(session);
    },
    onClosed(session: EdgeSession) {
      state.closed(session);
      if (!state.release(session) || !state.running) return;
      void session.record('disconnect', (key) => registrations.markDisconnected(key, now()));
      cluster?.closed(session);
    },
  };

  return createUpgradeHandler({
    wss: deps.wss,
    logger: deps.logger,
    verifyConnection: (id, secret) => deps.relayStore.verifyConnection(id, secret),
    admit: (connection) => state.openSockets(connection.connectionId) < deps.maxSocketsPerConnection,
    onConnection(ws, connection) {
      if (!state.running) {
        ws.close(CLOSE_CODES.goingAway, 'relay shutting down');
        return;
      }
      state.opened(ws, startEdgeSession(ws, connection, sessionDeps));
      deps.heartbeat.track(ws);
    },
  });
}
