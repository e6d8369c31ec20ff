import type { AuthorizationRequest } from '@outpost/express-authz';
import type { LocalDecision } from '@outpost/cedar-authorizer';
import type { EdgeMessage } from '../relay-protocol';
import type { EdgeState } from './edge-state';

/** An edge's relay connection as a plug-in sees it: one frame sent when connected, else nothing. */
export interface RelayLink {
  readonly connected: boolean;
  send(message: EdgeMessage): void;
}

/**
 * A platform area plugged into an edge runtime (docs/architecture.md, "Hooks"): decision
 * records are one (`src/decision-records`). The runtime knows only this shape; every hook is
 * optional.
 */
export interface EdgePlugin {
  /** Sees every decision its host records, in the same tick, with the state it was made from. */
  onDecision?(request: AuthorizationRequest, decision: LocalDecision, requestId: string, latencyMs: number, state: EdgeState): void;
  /** Prometheus text lines added after the edge's own on `/metrics`. */
  metrics?(): string;
  /** Starts with the edge; `relay()` is its relay connection (undefined before it is dialled). */
  start?(relay: () => RelayLink | undefined): void;
  /** Stops with the edge, before its relay connection closes: what the plug-in holds may still go out. */
  stop?(): void;
}
