import type { RequestListener } from 'node:http';
import type { PublicSigningKey } from '../policy';
import { edgeMetrics } from '../edge-metrics';
import { pinnedImageSignatures } from '../signed-images';
import { createEdgeApp } from './edge-app';
import { createEdgeRuntime, type EdgeRuntime, type EdgeRuntimeDeps } from '../edge';
import { createJwtIdentityVerifier } from './verify-identity';

/** Everything the sidecar edge needs: the runtime's inputs and how to verify `IDENTITY_TYPE_JWT`. */
export interface EdgeDeps extends EdgeRuntimeDeps {
  readonly jwt: { readonly issuer: string; readonly jwksUri: string; readonly audience: string; readonly clockToleranceSec?: number };
  /** The sidecar's public base URL, named in its AuthZEN metadata (default: from the request's Host). */
  readonly publicUrl?: string;
  /**
   * Pinned image-signing keys (`EDGE_POLICY_SIGNING_KEYS`): only images signed by one of them
   * are activated, never one signed as an older version than one activated before
   * (`src/signed-images`, plugged into the runtime).
   */
  readonly policySigningKeys?: readonly PublicSigningKey[];
}

/** The sidecar edge authorizer: an {@link EdgeRuntime} with its HTTP API (`app`). */
export interface Edge extends EdgeRuntime {
  /** The HTTP API as a request listener (for `http.createServer`, `listen` or supertest). */
  readonly app: RequestListener;
}

/**
 * Wires a sidecar edge: the runtime, with the edge's metrics plugged in before `deps.plugins`
 * (its API serves `/metrics`), and the HTTP app in front of it. Starts nothing.
 */
export function createEdge(deps: EdgeDeps): Edge {
  const keys = deps.policySigningKeys;
  const plugins = [edgeMetrics(), ...(deps.plugins ?? [])];
  const runtime = createEdgeRuntime({ ...deps, plugins, ...(keys === undefined ? {} : { imageSignatures: pinnedImageSignatures(keys, deps.dataDir) }) });
  const verifyJwt = createJwtIdentityVerifier({ ...deps.jwt, ...(deps.now ? { now: deps.now } : {}) });
  const app = createEdgeApp({ runtime, verifyJwt, logger: deps.logger, ...(deps.publicUrl ? { publicUrl: deps.publicUrl } : {}) });
  return {
    ...runtime,
    app,
    // Re-declared: the spread copied the getter's value once; this keeps it live.
    get relayConnected() {
      return runtime.relayConnected;
    },
  };
}
