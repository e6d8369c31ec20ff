import type { Logger } from '../observability';
import type { CommandName, DecisionRecord, EdgeStatus, TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import type { EdgeSessionState } from './edge-session-state';
import type { DecisionSampleReply } from './pending-samples';
import type { InstanceKey } from './registration';
import type { RegistrationStore } from './registration-store';
import type { RegistrationWrite } from './relay-database';
import type { EdgeConnection } from './relay-store';

/** Bad frames tolerated on one connection before it is closed. */
export const MAX_BAD_FRAMES = 5;

/** One authenticated edge connection, from its upgrade to its close. */
export interface EdgeSession {
  readonly connection: EdgeConnection;
  /** Where the session is in the protocol (see {@link EdgeSessionState}). */
  readonly state: EdgeSessionState['name'];
  /** Tenant and instance id, once the registration is stored (and after the close, what it was). */
  readonly key: InstanceKey | undefined;
  /**
   * Sends a command and resolves with the edge's status once it confirms; waits at most the
   * exec timeout, or `timeoutMs` when shorter (a broadcast's remaining time).
   */
  send(command: CommandName, timeoutMs?: number): Promise<EdgeStatus>;
  /** Asks for the edge's decision sample and resolves once its last chunk arrived. */
  sample(): Promise<DecisionSampleReply>;
  /** Asks the edge to decide one request without recording it ("Try a decision"); resolves with its answer. */
  tryDecision(request: TryDecisionRequest): Promise<TryDecisionResult>;
  /**
   * Queues one write of this session's registration behind the ones before it, so they
   * are applied in order even where the engine runs statements concurrently. Resolves
   * false when the database refused it (logged there), or before the registration is stored.
   */
  record(what: string, write: (key: InstanceKey) => Promise<unknown>): Promise<boolean>;
  close(code: number, reason: string): void;
}

/** Dependencies of `startEdgeSession` (start-edge-session.ts). */
export interface EdgeSessionDeps {
  readonly registrations: RegistrationStore;
  /** Runs one write to the registration table; false when the database refused it (logged there). Never rejects. */
  readonly store: RegistrationWrite;
  readonly logger: Logger;
  readonly now: () => number;
  readonly execTimeoutMs: number;
  readonly registerTimeoutMs: number;
  readonly maxPending: number;
  /**
   * Called once the registration is stored (`claiming`); the relay replaces any older session.
   * The edge hears `registered` once what it returns has settled (cluster mode: the presence claim).
   */
  readonly onRegistered: (session: EdgeSession) => Promise<void> | undefined;
  readonly onClosed: (session: EdgeSession) => void;
  /** Takes the decision records a registered edge sent (docs/reference/api.md, "Decision records"); without it they are dropped. */
  readonly onDecisions?: (key: InstanceKey, records: readonly DecisionRecord[]) => void;
}
