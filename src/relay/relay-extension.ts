import type { RequestHandler, Router } from 'express';
import type { ClusterNode } from './cluster-plugin';
import type { CommandRoute } from './command-routes';
import type { EdgeSession } from './edge-session';
import type { InstanceKey, Registration } from './registration';
import type { RegistrationStore } from './registration-store';
import type { Links } from './relay-registrations';

/**
 * The relay's hook for the platform's areas that serve over its management API (the
 * tenant-wide broadcast, drift and `/metrics` plug into it): each is started once, when the
 * relay is created, with a narrow view of the relay, and answers with what the relay then
 * serves. Without any, the relay serves the seed's management API alone (§4.2, §4.3).
 */
export interface RelayExtension {
  /** Names the area (`broadcast`, `drift`) for a reader of the composition. */
  readonly name: string;
  /** Called once by `createRelay`; what it returns is served until the relay closes. */
  start(view: RelayView): RelayExtensionParts;
}

/** What an extension may read of the relay and send through it; nothing it may write. */
export interface RelayView {
  /** The stored registrations (the caller's tenant only is ever read by a route). */
  readonly registrations: Pick<RegistrationStore, 'get' | 'listForTenant'>;
  /** Whether each of the tenant's instances is connected and, in cluster mode, which node holds it (503 while Redis is down). */
  readonly links: Links;
  /** This node's live session of an instance, if it holds one. */
  readonly local: (key: InstanceKey) => EdgeSession | undefined;
  /** Every live, registered session this node holds. */
  readonly held: () => Iterable<EdgeSession>;
  /** Cluster mode: this node's id and the way to the edges other nodes hold. */
  readonly cluster?: Pick<ClusterNode, 'node' | 'sendMany'>;
  /** How long exec waits for an edge's confirmation: a deadline for anything sent through the view. */
  readonly execTimeoutMs: number;
  /** Throws 503 `relay_closing` once the relay is closing. */
  readonly checkOpen: () => void;
  /** The tenant's Discovery API key check, as the relay's own routes use it; sets `res.locals.tenantId`. */
  readonly requireDiscoveryKey: RequestHandler;
}

/** What an extension adds to the relay; every part is optional. */
export interface RelayExtensionParts {
  /** Routes mounted on the management router after the relay's own (each with the checks it needs). */
  readonly router?: Router;
  /**
   * JSON commands served as exec is: behind the Discovery API key, then content type and body
   * size, on the management router and on the opt-in bare exec (src/fast-path).
   */
  readonly commandRoutes?: readonly CommandRoute[];
  /**
   * Fields appended to each registration's `info` in the §4.3 listing, after the seed's and
   * before `node`: one object per registration of the page, in its order. Additive only: the
   * seed's fields never change.
   */
  registrationInfo?(page: readonly Registration[]): Promise<readonly Readonly<Record<string, unknown>>[]>;
}
