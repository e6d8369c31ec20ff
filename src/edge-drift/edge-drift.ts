import type { Registration } from '../relay';

/**
 * What the control plane wants an edge to run: the `latest` image digest of the policy its
 * connection serves, and its tenant's central directory revision (null when there is none).
 */
export interface DesiredEdgeState {
  readonly policyDigest: string | null;
  readonly directoryRevision: number | null;
}

/** Looks up the desired state of an edge by its tenant and connection; the control plane supplies it. */
export type DesiredStateLookup = (tenantId: string, connectionId: string) => Promise<DesiredEdgeState>;

/** How far an edge's reported state is from the desired one (docs/reference/api.md, "Relay management API"). */
export interface EdgeDrift {
  readonly latestPolicyDigest: string | null;
  /** The edge's digest is not `latest` (also when either side has no image yet). */
  readonly policyDrift: boolean;
  readonly centralDirectoryRevision: number | null;
  /** Directory revisions the edge is behind the centre; 0 when current, ahead, or no directory. */
  readonly directoryLag: number;
}

/**
 * Compares what an edge last reported (its registration) with what it should run, so
 * operators see an edge that missed a push or a directory change without asking it.
 */
export function edgeDrift(registration: Registration, desired: DesiredEdgeState): EdgeDrift {
  const central = desired.directoryRevision;
  return {
    latestPolicyDigest: desired.policyDigest,
    policyDrift: registration.policyDigest !== desired.policyDigest,
    centralDirectoryRevision: central,
    directoryLag: central === null ? 0 : Math.max(0, central - registration.directoryRevision),
  };
}

/**
 * Memoizes a lookup for one listing or one scrape: many edges share a connection, and a
 * page of 1,000 registrations should not run 2,000 queries for a handful of connections.
 */
export function memoizeDesiredState(lookup: DesiredStateLookup): DesiredStateLookup {
  const seen = new Map<string, Promise<DesiredEdgeState>>();
  return (tenantId, connectionId) => {
    const key = `${tenantId}\u0000${connectionId}`;
    let desired = seen.get(key);
    if (desired === undefined) {
      desired = lookup(tenantId, connectionId);
      seen.set(key, desired);
    }
    return desired;
  };
}
