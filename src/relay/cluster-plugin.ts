import type { HttpError } from '../http';
import type { Logger } from '../observability';
import type { CommandName, EdgeStatus, TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import type { EdgeSession } from './edge-session';
import type { DecisionSampleReply } from './pending-samples';
import type { InstanceKey } from './registration';
import type { SendOutcome } from './send-to-edges';

/**
 * The relay's hook for cluster mode (src/cluster plugs into it): the relay finds an edge among
 * its own sockets, and asks the plug-in for every edge another node holds. Without one, the
 * relay's own sockets are all there is.
 */
export interface RelayClusterPlugin {
  /** Joins the relay to the cluster; the relay calls it once, when it is created. */
  join(deps: ClusterJoinDeps): ClusterNode;
}

/** What the relay gives a cluster plug-in when it joins: its own edges, and how it answers for an edge no node holds. */
export interface ClusterJoinDeps {
  readonly logger: Logger;
  readonly now: () => number;
  /** Presence records are refreshed once per heartbeat, in one pipeline. */
  readonly heartbeatMs: number;
  readonly execTimeoutMs: number;
  /** This node's live session of an instance, if it holds one. */
  readonly local: (key: InstanceKey) => EdgeSession | undefined;
  /** Every live, registered session this node holds. */
  readonly held: () => Iterable<EdgeSession>;
  /** The error for an instance no node holds: 404 when the tenant has no such registration, else 409. */
  readonly unrouted: (key: InstanceKey) => Promise<HttpError>;
}

/** The relay's side of cluster mode: presence of its edges, and exec for edges held elsewhere. */
export interface ClusterNode {
  readonly node: string;
  /** Records this node as the edge's holder; a previous holder is told to close its socket. */
  claimed(session: EdgeSession): Promise<void>;
  /** Deletes the edge's record unless another node claimed it since. */
  closed(session: EdgeSession): void;
  /** Sends a command to the edge through the node that holds it (409 when none does). */
  exec(key: InstanceKey, command: CommandName): Promise<EdgeStatus>;
  sample(key: InstanceKey): Promise<DecisionSampleReply>;
  /** Asks the edge to decide `request` without recording it, through the node that holds it. */
  tryDecision(key: InstanceKey, request: TryDecisionRequest): Promise<TryDecisionResult>;
  /**
   * Sends a command to several of the tenant's edges that `owner` holds (a plug-in's share of
   * a tenant-wide command on another node), in requests of at most `MAX_BUS_BROADCAST_IDS` ids,
   * and resolves within `timeoutMs` with what they came to; a request that fails or times out
   * fails each of its ids with that error's code.
   */
  sendMany(owner: string, tenantId: string, instanceIds: readonly string[], command: CommandName, timeoutMs: number): Promise<SendOutcome>;
  /** The node holding each of the tenant's instances, or null; one round trip. 503 while Redis is down. */
  owners(tenantId: string, instanceIds: readonly string[]): Promise<(string | null)[]>;
  /** Stops the timers, releases every held edge, leaves the cluster and closes its connection. */
  close(): Promise<void>;
}
