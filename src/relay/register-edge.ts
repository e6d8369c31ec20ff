import type { Logger } from '../observability';
import type { EdgeMessage, RelayMessage } from '../relay-protocol';
import { CLOSE_CODES } from './close-codes';
import type { EdgeSessionState } from './edge-session-state';
import type { RegisterOutcome } from './registration';
import type { RegistrationStore } from './registration-store';
import type { RegistrationWrites } from './registration-writes';
import type { EdgeConnection } from './relay-store';

/** A `register` frame. */
export type RegisterFrame = Extract<EdgeMessage, { type: 'register' }>;

/** The session a `register` frame came on, as {@link registerEdge} drives it. */
export interface RegisteringSession {
  readonly connection: EdgeConnection;
  readonly writes: RegistrationWrites;
  readonly log: Logger;
  /** Whether the socket is still open (ws's readyState). */
  open(): boolean;
  /** Moves the session through its gate; false, and no move, when the gate refuses. */
  moveTo(state: EdgeSessionState): boolean;
  reply(message: RelayMessage): void;
  close(code: number, reason: string): void;
}

/** What {@link registerEdge} needs from the relay. */
export interface RegisterEdgeDeps {
  readonly registrations: RegistrationStore;
  readonly now: () => number;
  /** Makes the stored session the instance's live one; the edge hears `registered` once it settles. */
  readonly goLive: () => Promise<void> | undefined;
}

/**
 * Runs one `register` frame from `registering` to `registered`: stores the registration (before
 * the edge hears it is registered, as the protocol promises), moves to `claiming` while the
 * relay makes it live, then answers `registered`. An instance id bound to another connection of
 * the tenant is refused (4002): without that, a second connection could take over the id,
 * receive its commands and confirm them while the real edge did nothing. A registration the
 * database refused closes the socket with 1011; the edge retries with backoff.
 */
export async function registerEdge(session: RegisteringSession, message: RegisterFrame, deps: RegisterEdgeDeps): Promise<void> {
  const { connection, writes, log } = session;
  const key = { tenantId: connection.tenantId, instanceId: message.instance_id };
  let outcome: RegisterOutcome | undefined;
  await writes.inOrder('registration', key.instanceId, async () => {
    outcome = await deps.registrations.register({ ...message, ...key, connectionId: connection.connectionId }, deps.now());
  });
  if (outcome === 'bound_to_other_connection') {
    log.warn({ instance_id: key.instanceId }, 'register refused: instance id bound to another connection');
    const message = 'this instance id is registered by another edge connection of the tenant; an operator must release it first';
    session.reply({ type: 'error', code: 'instance_bound', message });
    return session.close(CLOSE_CODES.instanceBound, 'instance bound to another connection');
  }
  if (outcome === undefined) {
    session.reply({ type: 'error', code: 'registration_failed', message: 'the relay could not store the registration; retry later' });
    return session.close(CLOSE_CODES.internalError, 'registration not stored');
  }
  if (!session.open() || !session.moveTo({ name: 'claiming', key })) {
    // The socket closed while the registration was being stored: it is not connected.
    void writes.inOrder('disconnect', key.instanceId, () => deps.registrations.markDisconnected(key, deps.now()));
    return;
  }
  writes.stored(message.status);
  await deps.goLive();
  if (!session.open() || !session.moveTo({ name: 'registered', key })) return;
  session.reply({ type: 'registered', instance_id: key.instanceId });
  log.info({ instance_id: key.instanceId, hostname: message.hostname, version: message.version }, 'edge registered');
}
