/**
 * The decision wire format shared by the edge authorizer (which serves it) and the apps'
 * `edge` authorizer (which calls it): the Topaz-shaped `is` request and the policy-name
 * rule that every component checks names against.
 */
export { isFlatValue, isRequestSchema, splitPolicyPath, withProtoFieldNames } from './is-request';
export type { IsRequest } from './is-request';
export { POLICY_NAME_PATTERN, POLICY_NAME_RULE } from '@outpost/cedar-authorizer';
export { FRESHNESS_HEADERS } from './freshness-fields';
export { EXPLAIN_HEADER, EXPLAIN_REASONS } from './explain-header';
export {
  AUTHZEN_PATHS,
  MAX_EVALUATIONS,
  EVALUATIONS_SEMANTICS,
  evaluationRequestSchema,
  evaluationsRequestSchema,
  evaluationResponseSchema,
  authzenConfigurationSchema,
  expandEvaluations,
} from './authzen';
export type { Evaluation, BatchItem } from './authzen';
export {
  AUTHZEN_SEARCH_PATHS,
  MAX_SEARCH_PAGE_SIZE,
  searchRequestSchema,
  searchResponseSchema,
  searchInputProblem,
} from './authzen-search';
export type { SearchKind, SearchRequest, SearchResponse } from './authzen-search';
