import type { EdgeStatus } from '../relay-protocol';

/** One edge authorizer as the relay knows it (docs/architecture.md, "Control plane and relay"). */
export interface Registration {
  readonly instanceId: string;
  readonly tenantId: string;
  /** The edge connection that first registered this instance id; it stays bound to it. */
  readonly connectionId: string;
  readonly hostname: string;
  readonly version: string;
  readonly policyName: string;
  readonly policyDigest: string | null;
  readonly directoryRevision: number;
  /** As last stored; the relay's live sockets are the truth (a write may have failed). */
  readonly connected: boolean;
  /** Epoch milliseconds of the last registration. */
  readonly connectedAt: number;
  /** Epoch milliseconds of the last frame or pong. */
  readonly lastSeen: number;
}

/** What a `register` frame plus the authenticated connection contribute. */
export interface RegistrationInput {
  readonly instanceId: string;
  readonly tenantId: string;
  readonly connectionId: string;
  readonly hostname: string;
  readonly version: string;
  readonly status: EdgeStatus;
}

/** Where instance ids of one tenant live: ids are per tenant, so no tenant learns another's. */
export interface InstanceKey {
  readonly tenantId: string;
  readonly instanceId: string;
}

/** The outcome of a registration attempt. */
export type RegisterOutcome = 'registered' | 'bound_to_other_connection';

/**
 * Whether an edge is connected. In cluster mode `node` is the id of the node holding its
 * socket (null when none does); outside cluster mode it is absent, and so is `info.node`.
 */
export interface EdgeLink {
  readonly connected: boolean;
  readonly node?: string | null;
}
