import { createLocalAuthorizer, explainDecision, type LocalAuthorizer } from '@outpost/cedar-authorizer';
import { resolveUserId, type DirectoryData } from '../directory';
import { HttpError } from '../http';
import type { TryDecisionRequest, TryDecisionResult } from '../relay-protocol';
import type { EdgeState } from './edge-state';

/** How a tried decision ended: the answer, or a code and message the relay passes on as exec's 502 does. */
export type TryOutcome = { readonly ok: true; readonly result: TryDecisionResult } | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

function emailOf(directory: DirectoryData, id: string): string | undefined {
  return directory.users.find((u) => u.id === id)?.email;
}

/**
 * "Try a decision" at this edge (docs/reference/api.md, "Decision records"): the request decided
 * from the edge's current image and directory, as a decision route would, through an authorizer
 * of its own — uncached and with no hook — so it writes no decision record and leaves the decision
 * sample and the cache as they were. Never throws.
 */
export function createTryDecision(state: EdgeState): { decide(request: TryDecisionRequest): TryOutcome; close(): Promise<void> } {
  const authorizer: LocalAuthorizer = createLocalAuthorizer({ policy: () => state.policy?.compiled, directory: () => state.directory, cacheSize: 0 });
  return {
    decide(request) {
      const { policy, directory } = state;
      if (!policy) return { ok: false, error: { code: 'no_image', message: 'the edge has no policy image yet' } };
      if (!directory) return { ok: false, error: { code: 'no_directory', message: 'the edge has no directory yet' } };
      try {
        const decision = authorizer.decideNow({ ...request, policyPath: `${policy.image.name}.${request.action}` });
        const id = resolveUserId(directory, request.principal);
        const email = emailOf(directory, id);
        return {
          ok: true,
          result: {
            principal: email === undefined ? { id } : { id, email },
            decision: decision.allowed ? 'allow' : 'deny',
            reasons: explainDecision(policy.image.files, decision).slice(0, 8),
            policy_digest: decision.policyDigest,
            directory_revision: decision.directoryRevision,
          },
        };
      } catch (err) {
        // A request the policy cannot take (a wrong type, say) or Cedar failing: said, never thrown.
        const message = err instanceof HttpError ? err.message : 'the edge could not decide this request (see the edge log)';
        return { ok: false, error: { code: 'try_failed', message } };
      }
    },
    close: () => authorizer.close(),
  };
}
