import type { EdgeSession } from './edge-session';
import type { InstanceKey } from './registration';
import { relayClosing } from './relay-errors';
import { StateGate, type Transitions } from './state-gate';

/**
 * Where the relay is in its life, as websockets/ws's server keeps RUNNING → CLOSING → CLOSED:
 * `running` serves; `closing` refuses every new socket and request (503 `relay_closing`) while
 * its sockets close and their disconnects are stored (`done` settles then); `closed` is final.
 */
export type RelayPhase = { readonly name: 'running' } | { readonly name: 'closing'; readonly done: Promise<void> } | { readonly name: 'closed' };

/** The moves the relay may make: one way, once. */
export const RELAY_TRANSITIONS: Transitions<RelayPhase> = { running: ['closing'], closing: ['closed'], closed: [] };

/** The live-socket map key: instance ids are per tenant. */
function liveKey({ tenantId, instanceId }: InstanceKey): string {
  return `${tenantId}\u0000${instanceId}`;
}

/**
 * The relay's state in one object: its phase behind one gate, the live session of each
 * registered instance this node holds, the session on each socket and the sockets each edge
 * connection holds open.
 */
export class RelayState {
  private readonly gate = new StateGate<RelayPhase>(RELAY_TRANSITIONS, { name: 'running' });
  private readonly live = new Map<string, EdgeSession>();
  private readonly bySocket = new WeakMap<object, EdgeSession>();
  private readonly socketsPerConnection = new Map<string, number>();

  get phase(): RelayPhase {
    return this.gate.state;
  }

  get running(): boolean {
    return this.gate.state.name === 'running';
  }

  /** Moves the relay through its gate; false, and no move, when the gate refuses. */
  moveTo(phase: RelayPhase): boolean {
    return this.gate.moveTo(phase);
  }

  /** The gate every request passes: 503 `relay_closing` unless the relay runs. */
  checkRunning(): void {
    if (!this.running) throw relayClosing();
  }

  /** This node's live session of an instance, if it holds one. */
  session(key: InstanceKey): EdgeSession | undefined {
    return this.live.get(liveKey(key));
  }

  /** Every live session this node holds (each registered). */
  sessions(): IterableIterator<EdgeSession> {
    return this.live.values();
  }

  /** Whether `session` is its instance's live one (registered, and not replaced since). */
  isLive(session: EdgeSession): boolean {
    const key = session.key;
    return key !== undefined && this.live.get(liveKey(key)) === session;
  }

  /** Makes a stored registration's session its instance's live one; returns the one it replaces. */
  goLive(key: InstanceKey, session: EdgeSession): EdgeSession | undefined {
    const id = liveKey(key);
    const previous = this.live.get(id);
    this.live.set(id, session);
    return previous === session ? undefined : previous;
  }

  /** Forgets a closed session; true when it was its instance's live one. */
  release(session: EdgeSession): boolean {
    if (!this.isLive(session)) return false;
    this.live.delete(liveKey(session.key!));
    return true;
  }

  /** Forgets every live session (the relay closed them all). */
  releaseAll(): void {
    this.live.clear();
  }

  /** The session on a socket. */
  sessionOn(socket: object): EdgeSession | undefined {
    return this.bySocket.get(socket);
  }

  /** Notes a new socket of an edge connection and the session on it. */
  opened(socket: object, session: EdgeSession): void {
    const { connectionId } = session.connection;
    this.socketsPerConnection.set(connectionId, this.openSockets(connectionId) + 1);
    this.bySocket.set(socket, session);
  }

  /** Notes that one of an edge connection's sockets closed. */
  closed(session: EdgeSession): void {
    const { connectionId } = session.connection;
    const open = this.openSockets(connectionId) - 1;
    if (open > 0) this.socketsPerConnection.set(connectionId, open);
    else this.socketsPerConnection.delete(connectionId);
  }

  /** Sockets an edge connection holds open. */
  openSockets(connectionId: string): number {
    return this.socketsPerConnection.get(connectionId) ?? 0;
  }
}
