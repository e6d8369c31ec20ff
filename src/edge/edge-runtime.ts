import type { AuthorizationRequest } from '@outpost/express-authz';
import type { LocalAuthorizer, LocalDecision } from '@outpost/cedar-authorizer';
import type { Logger } from '../observability';
import type { CommandName, EdgeStatus } from '../relay-protocol';
import type { DecisionSample } from './decision-sample';
import type { EdgePlugin } from './edge-plugin';
import type { EdgeState } from './edge-state';
import type { Freshness } from './freshness';
import type { CommandOutcome } from './relay-client-contract';
import type { ImageSignatureCheck } from './image-signature-check';
import type { Timers } from './timers';

/** Everything an edge's runtime needs; the optional trailing fields exist for tests and embedding. */
export interface EdgeRuntimeDeps {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
  readonly dataDir: string;
  readonly discoveryIntervalMs: number;
  readonly directorySyncIntervalMs: number;
  readonly fullSyncIntervalMs: number;
  readonly logger: Logger;
  /**
   * The image-signature check of pinned keys (`EDGE_POLICY_SIGNING_KEYS`, `src/signed-images`):
   * when set, only images it verifies are activated, persisted ones included.
   */
  readonly imageSignatures?: ImageSignatureCheck;
  /** Longest a decision waits for a sync it asked for with `min_*` (default 2,000 ms). */
  readonly freshnessWaitMs?: number;
  /** Decision cache entries (default 10,000; 0 disables it). */
  readonly cacheSize?: number;
  /** Platform areas plugged into this edge (decision records are one: `src/decision-records`). */
  readonly plugins?: readonly EdgePlugin[];
  readonly version?: string;
  readonly hostname?: string;
  readonly timers?: Timers;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly relay?: { readonly silenceTimeoutMs?: number; readonly stableAfterMs?: number; readonly backoff?: { baseMs: number; capMs: number } };
}

/**
 * An edge authorizer without its HTTP API: the state it decides from, the two sync jobs,
 * the relay client and Cedar. The sidecar (`createEdge`) puts an HTTP API in front of it;
 * a Node app embeds it directly and asks `authorizer` in-process.
 */
export interface EdgeRuntime {
  readonly instanceId: string;
  readonly state: EdgeState;
  readonly authorizer: LocalAuthorizer;
  /** The plug-ins' Prometheus text lines for `/metrics` (empty without a plug-in that has some). */
  metrics(): string;
  /** Hands an answer the edge's API gave (allowed or not) to the plug-ins' `onAnswer`. */
  answered(allowed: boolean): void;
  /** Recent distinct decisions of this edge (sidecar and embedded alike), sent to the relay for a dry run. */
  readonly decisionSample: DecisionSample;
  /**
   * Hands a decision just made (`requestId`: the HTTP request it answered; `latencyMs`: time
   * spent deciding) to the plug-ins' `onDecision`, with the state it was made from. Call it in
   * the same tick as the decision.
   */
  recordDecision(request: AuthorizationRequest, decision: LocalDecision, requestId: string, latencyMs: number): void;
  readonly freshness: Freshness;
  /**
   * Locks the data directory (one edge per directory; a lock the kernel frees when the edge
   * dies, `acquireDirectoryLock`), loads persisted state, starts both timers and dials the
   * relay. Never fails for a missing control plane.
   */
  start(): Promise<void>;
  close(): Promise<void>;
  /**
   * Waits (at most `timeoutMs`) until the syncs in progress have ended; true when a policy
   * and a directory are loaded. A host calls it after `start` so it serves decisions, not
   * 503s, from its first request.
   */
  settle(timeoutMs: number): Promise<boolean>;
  /** What a relay command does: run the job now (coalescing) within `timeoutMs` (default 10 s) and report. */
  runCommand(command: CommandName, timeoutMs?: number): Promise<CommandOutcome>;
  status(): EdgeStatus;
  readonly relayConnected: boolean;
}
