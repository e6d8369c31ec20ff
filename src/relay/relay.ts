import type { RequestHandler, Router } from 'express';
import type { Server } from 'node:http';
import type { Logger } from '../observability';
import type { CommandName, DecisionRecord, EdgeStatus, TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import type { RelayClusterPlugin } from './cluster-plugin';
import type { CommandRoute } from './command-routes';
import type { RegistrationsPage } from './management-router';
import type { DecisionSampleReply } from './pending-samples';
import type { RelayExtension } from './relay-extension';
import type { InstanceKey } from './registration';
import type { RelayStore } from './relay-store';

/** Dependencies of `createRelay` (create-relay.ts). */
export interface RelayDeps {
  readonly store: RelayStore;
  /**
   * Authenticates a management call with the tenant's Discovery API key and sets
   * `res.locals.tenantId`; the control plane supplies it.
   */
  readonly requireDiscoveryKey: RequestHandler;
  readonly logger: Logger;
  /** How long exec waits for the edge's confirmation before 504. */
  readonly execTimeoutMs: number;
  /** Ping period; a socket that missed the previous pong is terminated. */
  readonly heartbeatMs: number;
  /** Epoch-milliseconds clock for `connected_at` / `last_seen`. */
  readonly now?: () => number;
  /** How long a new socket may take to send `register` (default 5 s). */
  readonly registerTimeoutMs?: number;
  /** Commands that may wait on one edge at once (default 64); more get 429. */
  readonly maxPendingPerEdge?: number;
  /** Sockets one edge connection may hold open at once (default {@link MAX_SOCKETS_PER_CONNECTION}). */
  readonly maxSocketsPerConnection?: number;
  /**
   * Cluster mode (`REDIS_URL`), plugged in from src/cluster: this node's id, presence registry and bus to the other
   * nodes. Without it the relay is a single node and its sockets are the whole truth. The
   * relay closes it when it closes.
   */
  readonly cluster?: RelayClusterPlugin;
  /**
   * The platform's areas that serve over the management API (relay-extension.ts), started in
   * this order when the relay is created: the tenant-wide broadcast (src/relay-broadcast),
   * drift and `/metrics` (src/edge-drift), plugged in by src/control-plane-server. Without
   * any, the relay serves exec, the registrations and their release alone.
   */
  readonly extensions?: readonly RelayExtension[];
  /** Takes the decision records edges ship (docs/reference/api.md, "Decision records"); must not wait or throw. */
  readonly onDecisions?: (key: InstanceKey, records: readonly DecisionRecord[]) => void;
}

/** The relay: edge WebSocket endpoint plus the management API of docs/service-interface.md §4.2–4.3. */
export interface Relay {
  readonly managementRouter: Router;
  /** Exec, then the extensions' commands: the routes the management router serves, for the opt-in bare exec (src/fast-path). */
  readonly commandRoutes: readonly CommandRoute[];
  /** Serves the edge WebSocket on `server`'s `upgrade` event. */
  attach(server: Server): void;
  /** Sends a command to one of the tenant's instances and waits for its confirmation. Throws HttpErrors. */
  exec(tenantId: string, instanceId: string, command: CommandName): Promise<EdgeStatus>;
  /**
   * Asks one of the tenant's instances for its decision sample (docs/reference/api.md, "Dry run"),
   * with exec's errors: 404 unknown, 409 not connected, 502 edge failure, 504 timeout.
   */
  sampleDecisions(tenantId: string, instanceId: string): Promise<DecisionSampleReply>;
  /**
   * Asks one of the tenant's instances to decide `request` without recording it ("Try a
   * decision", docs/reference/api.md, "Decision records"), with exec's errors; in cluster mode
   * an edge on another node is asked through that node, as exec is.
   */
  tryDecision(tenantId: string, instanceId: string, request: TryDecisionRequest): Promise<TryDecisionResult>;
  /**
   * One page of the tenant's registrations (`page_size`, `page_token` in `query`), as §4.3
   * answers, with the extensions' fields. Rejects with 400 for bad paging.
   */
  registrations(tenantId: string, query: Record<string, unknown>): Promise<RegistrationsPage>;
  /** Closes every edge socket (1001), fails pending commands, stores the disconnects and closes its database handle. */
  close(): Promise<void>;
}

/**
 * Sockets one edge connection credential may hold at once: a few replicas of one edge, plus
 * a reconnect racing its old socket's close. More are refused at the upgrade with 429.
 */
export const MAX_SOCKETS_PER_CONNECTION = 16;
