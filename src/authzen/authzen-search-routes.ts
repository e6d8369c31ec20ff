import { AUTHZEN_SEARCH_PATHS, searchRequestSchema, type SearchKind } from '../decision-protocol';
import { parseBody } from '../http';
import type { Logger } from '../observability';
import { type EdgeRuntime, readDemand, stateUsedHeaders, type DecisionRoute } from '../edge';
import { searchEdge } from './search-edge';

/** Body limit of the search endpoints (a search names at most three entities and a context). */
const SEARCH_LIMIT_BYTES = 64 * 1024;

/**
 * `POST /access/v1/search/{subject,resource,action}` (AuthZEN 1.0 §8): 400 for a body
 * that is not a search or lacks an input entity's id (§8.4–§8.6), then the search
 * ({@link searchEdge}). An unknown type or id is not an error: no candidate, or none
 * permitted, is an empty `results`. One log line per search: what was asked, how many
 * candidates were evaluated, how many permitted, and why a page ended early.
 */
export function createAuthzenSearchRoutes(deps: { runtime: EdgeRuntime; logger: Logger }): DecisionRoute[] {
  const { runtime, logger } = deps;
  const route = (kind: SearchKind): DecisionRoute => ({
    path: AUTHZEN_SEARCH_PATHS[kind],
    limitBytes: SEARCH_LIMIT_BYTES,
    // As on the evaluation endpoints: the certification scenario wants 400 (its §2.4.3).
    wrongMediaTypeStatus: 400,
    async handle(input) {
      const body = parseBody(searchRequestSchema, input.body, { what: `${kind} search request` });
      const outcome = await searchEdge(runtime, kind, body, { demand: readDemand(input, body) });
      logger.info(
        {
          req_id: input.id,
          search: kind,
          subject: body.subject.id ?? null,
          action: body.action?.name ?? null,
          resource: { type: body.resource.type, id: body.resource.id ?? null },
          evaluated: outcome.evaluated,
          results: outcome.response.results.length,
          stopped_by: outcome.stoppedBy ?? null,
          policy_digest: outcome.policyDigest,
          directory_revision: outcome.directoryRevision,
        },
        'search',
      );
      return { headers: stateUsedHeaders(outcome), body: outcome.response };
    },
  });
  return [route('subject'), route('resource'), route('action')];
}
