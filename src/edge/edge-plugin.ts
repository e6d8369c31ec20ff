import type { AuthorizationRequest } from '@outpost/express-authz';
import type { LocalDecision } from '@outpost/cedar-authorizer';
import type { EdgeMessage } from '../relay-protocol';
import type { EdgeState } from './edge-state';

/** An edge's relay connection as a plug-in sees it: one frame sent when connected, else nothing. */
export interface RelayLink {
  readonly connected: boolean;
  send(message: EdgeMessage): void;
}

/** Which sync job ran, and how it ended. */
export type SyncJob = 'policy' | 'directory';
export type SyncResult = 'updated' | 'unchanged' | 'failed';

/**
 * A platform area plugged into an edge runtime (docs/architecture.md, "Hooks"): decision
 * records (`src/decision-records`) and the edge's metrics (`src/edge-metrics`) are two. The
 * runtime knows only this shape; every hook is optional.
 */
export interface EdgePlugin {
  /** Sees every decision its host records, in the same tick, with the state it was made from. */
  onDecision?(request: AuthorizationRequest, decision: LocalDecision, requestId: string, latencyMs: number, state: EdgeState): void;
  /** Sees every answer the edge's API gave, allowed or not (an unknown principal is denied without a decision). */
  onAnswer?(allowed: boolean): void;
  /** Sees every policy discovery and directory sync run end. */
  onSync?(job: SyncJob, result: SyncResult): void;
  /** Prometheus text lines for `/metrics`, each plug-in's after the ones before it, from the edge's state. */
  metrics?(state: EdgeState): string;
  /** Starts with the edge; `relay()` is its relay connection (undefined before it is dialled). */
  start?(relay: () => RelayLink | undefined): void;
  /** Stops with the edge, before its relay connection closes: what the plug-in holds may still go out. */
  stop?(): void;
}
