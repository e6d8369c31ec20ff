import { search, type SearchCandidate, type SearchOutcome } from '../decision';
import { searchInputProblem, type SearchKind, type SearchRequest } from '../decision-protocol';
import { BadRequestError } from '../http';
import { toAuthorizationRequest } from './authzen-request';
import { type EdgeRuntime, requireReady, type FreshnessDemand } from '../edge';
import { createTurns } from './take-turns';

/**
 * Search pages of this process, one an event-loop turn: sixteen searches asked at once held
 * evaluations at the same edge to p50 640 ms (33 ms alone), each waiting behind every page.
 */
const searchTurns = createTurns();

/** A search's outcome and the state it was answered from. */
export interface EdgeSearchOutcome extends SearchOutcome {
  readonly policyDigest: string;
  readonly directoryRevision: number;
}

/** What an in-process caller may add to a search. */
export interface EdgeSearchOptions {
  /** Resource candidates the app holds itself (its todos, with their properties). */
  readonly candidates?: readonly SearchCandidate[];
  /** Freshness, as on a decision: sync first if the edge is behind. */
  readonly demand?: FreshnessDemand;
  readonly now?: () => number;
}

/**
 * An AuthZEN search (§8) on an edge — the sidecar's `/access/v1/search/*` and an embedded
 * app's in-process call alike. Each candidate is decided by the edge's own authorizer
 * through {@link toAuthorizationRequest}, the evaluation endpoint's mapping, so a result
 * is exactly a candidate that `/access/v1/evaluation` permits; the page is decided in one
 * synchronous step, so one policy and directory snapshot answers all of it, in its own
 * event-loop turn, so evaluations asked meanwhile never wait behind more than one page. 400 when an
 * input entity lacks its id ({@link searchInputProblem}); 503 `not_ready` before the first sync.
 */
export async function searchEdge(runtime: EdgeRuntime, kind: SearchKind, request: SearchRequest, options: EdgeSearchOptions = {}): Promise<EdgeSearchOutcome> {
  const problem = searchInputProblem(kind, request);
  if (problem !== undefined) throw new BadRequestError(problem);
  await runtime.freshness.ensure(options.demand ?? { minDirectoryRevision: request.min_directory_revision, minPolicyDigest: request.min_policy_digest });
  return searchTurns(() => {
    const { policy, directory } = requireReady(runtime.state);
    const outcome = search(kind, request, {
      directory,
      schema: policy.compiled.schema,
      decide: (question) => runtime.authorizer.decideNow(toAuthorizationRequest(question, policy.image.name, directory)).allowed,
      now: options.now ?? Date.now,
      ...(options.candidates ? { candidates: options.candidates } : {}),
    });
    return { ...outcome, policyDigest: policy.image.digest, directoryRevision: directory.revision };
  });
}
