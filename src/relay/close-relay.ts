import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocketServer } from 'ws';
import type { Logger } from '../observability';
import { CLOSE_CODES } from './close-codes';
import { closeAllSockets } from './close-sockets';
import type { ClusterNode } from './cluster-plugin';
import type { RegistrationStore } from './registration-store';
import type { RelayState } from './relay-state';

/** What {@link closeRelay} stops, closes and stores. */
export interface CloseRelayDeps {
  readonly state: RelayState;
  readonly wss: WebSocketServer;
  readonly servers: ReadonlySet<Server>;
  readonly onUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** The heartbeat and the last-seen batch: their timers stop first. */
  readonly timers: readonly { stop(): void }[];
  readonly cluster: ClusterNode | undefined;
  readonly registrations: RegistrationStore;
  readonly now: () => number;
  readonly log: Logger;
  /** Closes the relay's database handle, last. */
  readonly closeDatabase: () => Promise<void>;
}

/**
 * Closes the relay once, through its gate: `running → closing` at once (every request and new
 * socket is refused from here), then the timers stop, the cluster stops routing here, every
 * edge socket closes (1001) and its disconnect is stored, and the database handle closes;
 * `closing → closed` at the end. A second call waits for the first.
 */
export function closeRelay(deps: CloseRelayDeps): Promise<void> {
  const phase = deps.state.phase;
  if (phase.name === 'closing') return phase.done;
  if (phase.name === 'closed') return Promise.resolve();
  // The steps run a microtask later, once the gate says `closing`.
  const done = Promise.resolve().then(() => closeSteps(deps));
  deps.state.moveTo({ name: 'closing', done });
  return done;
}

async function closeSteps(deps: CloseRelayDeps): Promise<void> {
  const { state, registrations, now } = deps;
  for (const timer of deps.timers) timer.stop();
  for (const server of deps.servers) server.off('upgrade', deps.onUpgrade);
  // Other nodes stop routing here before the sockets close (the edges reconnect elsewhere).
  await deps.cluster?.close().catch((err: unknown) => deps.log.warn({ err: (err as Error).message }, 'leaving the cluster failed'));
  const disconnects: Promise<boolean>[] = [];
  for (const session of state.sessions()) disconnects.push(session.record('disconnect', (key) => registrations.markDisconnected(key, now())));
  await closeAllSockets(deps.wss, CLOSE_CODES.goingAway, 'relay shutting down');
  state.releaseAll();
  await Promise.all(disconnects);
  await deps.closeDatabase();
  state.moveTo({ name: 'closed' });
}
