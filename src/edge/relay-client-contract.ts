import type { Logger } from '../observability';
import { RELAY_PATH, type CommandName, type EdgeMessage, type EdgeStatus, type SampledDecision, type TryDecisionRequest } from '../relay-protocol';
import type { TryOutcome } from './try-decision';
import type { EdgeCredentials } from './control-plane-client';
import type { Timers } from './timers';

/** How a command ended: the status after it, or a stable error code and a message for exec. */
export type CommandOutcome =
  | { readonly ok: true; readonly status: EdgeStatus }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** Options of {@link createRelayClient}; the optional ones exist for tests. */
export interface RelayClientOptions {
  readonly relayUrl: string;
  readonly credentials: EdgeCredentials;
  readonly instanceId: string;
  readonly hostname: string;
  readonly version: string;
  readonly status: () => EdgeStatus;
  /** Runs a command; `timeoutMs` is how long the relay waits for its result (the frame's `timeout_ms`), when it said. */
  readonly onCommand: (command: CommandName, timeoutMs: number | undefined) => Promise<CommandOutcome>;
  /** The decision sample a `sample_request` asks for (docs/reference/api.md, "Dry run"). */
  readonly decisionSample: () => readonly SampledDecision[];
  /** Decides a `try_decision` without recording it ("Try a decision"); absent, the edge answers `try_failed`. */
  readonly tryDecision?: (request: TryDecisionRequest) => TryOutcome;
  readonly logger: Logger;
  readonly timers?: Timers;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly backoff?: { readonly baseMs: number; readonly capMs: number };
  /** A relay silent this long (no frame, no ping) is dead: the socket is dropped and redialled. */
  readonly silenceTimeoutMs?: number;
  /** A connection that lived this long resets the backoff to its first step. */
  readonly stableAfterMs?: number;
  /**
   * Called on each `registered` from the relay; `again` is false for the first one of this
   * client and true after every reconnect (the edge then syncs once: a command sent while
   * it was between relay nodes is not lost for good).
   */
  readonly onRegistered?: (again: boolean) => void;
}

/** The edge's outbound relay connection. */
export interface RelayClient {
  /** Dials the relay; from then on the client keeps reconnecting until {@link close}. */
  start(): void;
  /** Sends the current status if connected (after timer-driven syncs). */
  sendStatus(): void;
  /** Sends one frame if connected, else nothing (decision records: docs/reference/api.md, "Decision records"). */
  send(message: EdgeMessage): void;
  readonly connected: boolean;
  close(): Promise<void>;
}

/** `http(s)://host` → `ws(s)://host/api/v2/relay/edge`. */
export function relaySocketUrl(relayUrl: string): string {
  return `${relayUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}${RELAY_PATH}`;
}
