import type { Logger } from '../observability';
import type { EdgeMessage, RelayMessage } from '../relay-protocol';
import { CLOSE_CODES } from './close-codes';
import type { RegisterOutcome } from './registration';
import type { RegistrationStore } from './registration-store';
import type { EdgeConnection } from './relay-store';

/** What a `register` frame led to: registered, or the error frame and close code to answer with. */
export type RegisterResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reply: RelayMessage; readonly closeCode: number; readonly closeReason: string };

/** What {@link registerEdge} needs from the relay. */
export interface RegisterEdgeDeps {
  readonly registrations: RegistrationStore;
  /** The session's ordered registration writes (resolves false when the database refused one). */
  readonly store: (what: string, instanceId: string, write: () => Promise<unknown>) => Promise<boolean>;
  readonly now: () => number;
  readonly log: Logger;
}

/**
 * Stores a `register` frame's registration for the authenticated connection. An instance id
 * bound to another connection of the tenant is refused (4002): without that, a second
 * connection could take over the id, receive its commands and confirm them while the real
 * edge did nothing. A registration the database refused closes the socket with 1011; the
 * edge retries with backoff. Resolves once the registration is stored (or refused).
 */
export async function registerEdge(
  message: Extract<EdgeMessage, { type: 'register' }>,
  connection: EdgeConnection,
  deps: RegisterEdgeDeps,
): Promise<RegisterResult> {
  const id = message.instance_id;
  let outcome: RegisterOutcome | undefined;
  await deps.store('registration', id, async () => {
    outcome = await deps.registrations.register(
      { ...message, instanceId: id, tenantId: connection.tenantId, connectionId: connection.connectionId },
      deps.now(),
    );
  });
  if (outcome === 'bound_to_other_connection') {
    deps.log.warn({ instance_id: id }, 'register refused: instance id bound to another connection');
    return {
      ok: false,
      reply: {
        type: 'error',
        code: 'instance_bound',
        message: 'this instance id is registered by another edge connection of the tenant; an operator must release it first',
      },
      closeCode: CLOSE_CODES.instanceBound,
      closeReason: 'instance bound to another connection',
    };
  }
  if (outcome === undefined) {
    return {
      ok: false,
      reply: { type: 'error', code: 'registration_failed', message: 'the relay could not store the registration; retry later' },
      closeCode: CLOSE_CODES.internalError,
      closeReason: 'registration not stored',
    };
  }
  return { ok: true };
}
