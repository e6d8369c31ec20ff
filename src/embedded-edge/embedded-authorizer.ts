import { randomUUID } from 'node:crypto';
import { AuthorizerUnavailableError, type AuthorizationRequest, type Authorizer } from '@outpost/express-authz';
import type { LocalDecision } from '@outpost/cedar-authorizer';
import type { DirectoryData } from '../directory';
import { splitPolicyPath } from '../decision-protocol';
import { createEdgeRuntime, reasonsOf, type EdgeRuntime, type EdgeRuntimeDeps } from '../edge';

/** How long `open` waits for the first sync before the app starts serving anyway (it then answers 503 until synced). */
export const FIRST_SYNC_WAIT_MS = 5_000;

/** The `embedded` authorizer: an edge runtime inside the app, asked in-process. */
export interface EmbeddedAuthorizer extends Authorizer {
  readonly kind: 'embedded';
  authorize(request: AuthorizationRequest): Promise<LocalDecision>;
  authorizeNow(request: AuthorizationRequest): LocalDecision;
  /** The edge inside the app: its instance id, status, and the commands the relay sends. */
  readonly edge: EdgeRuntime;
  /** The directory replica decisions are made from (undefined before the first sync). */
  directory(): DirectoryData | undefined;
}

/**
 * Starts an edge authorizer inside this process — relay client, policy and directory
 * sync, persisted last good state, Cedar — and answers the app's questions with an
 * in-process call (no HTTP hop). The edge registers with the relay like a sidecar, so
 * `discovery` and `sync_edge_directory` change the app's own decisions, and a command's
 * confirmation means every later decision uses the new state. With the control plane
 * down it decides from the state persisted in `dataDir`. It fails closed: no state yet,
 * or an image for another policy than the one asked about, is a 503.
 */
export async function openEmbeddedAuthorizer(deps: EdgeRuntimeDeps): Promise<EmbeddedAuthorizer> {
  const edge = createEdgeRuntime(deps);
  await edge.start();
  const ready = await edge.settle(FIRST_SYNC_WAIT_MS);
  if (!ready) deps.logger.warn({ instance_id: edge.instanceId }, 'embedded edge has no policy or directory yet; decisions answer 503 until it syncs');

  /** An image of another policy than the one asked about is a 503, never a guess. */
  function checkPolicy(request: AuthorizationRequest): void {
    const active = edge.state.policy?.image.name;
    const asked = splitPolicyPath(request.policyPath).policy;
    if (active !== undefined && active !== asked) {
      throw new AuthorizerUnavailableError(`the embedded edge holds policy ${active}, not ${asked}: its connection serves another policy`);
    }
  }

  /** Decided and recorded in one tick, so the record names the state the decision used. */
  function authorizeNow(request: AuthorizationRequest): LocalDecision {
    checkPolicy(request);
    const started = performance.now();
    const decision = edge.authorizer.decideNow(request);
    edge.recordDecision(request, decision, request.requestId ?? randomUUID(), performance.now() - started);
    return decision;
  }

  return {
    kind: 'embedded',
    edge,
    directory: () => edge.state.directory,
    ready: () => edge.state.policy !== undefined && edge.state.directory !== undefined,
    authorizeNow,
    async authorize(request) {
      return authorizeNow(request);
    },
    async explain(request) {
      checkPolicy(request);
      // Decided and explained in one tick, with the image the decision used; no record.
      const decision = edge.authorizer.decideNow(request);
      return { allowed: decision.allowed, policyPath: decision.policyPath, reasons: reasonsOf(decision, edge.state.policy) };
    },
    close: () => edge.close(),
  };
}
