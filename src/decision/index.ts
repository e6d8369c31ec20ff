/**
 * The decision core: Cedar evaluated in-process over a compiled policy image and a
 * directory snapshot, with a decision cache. The edge authorizer serves it over HTTP;
 * the sample apps' `local` authorizer calls it directly.
 */
export { AuthorizerUnavailableError, InvalidPropertyError } from '@outpost/express-authz';
export type { AuthorizationRequest } from '@outpost/express-authz';
export { createLocalAuthorizer, runPolicyTests, assertPolicyTestsPass, checkPolicyImage, PolicyTestsFailedError } from '@outpost/cedar-authorizer';
export type { LocalDecision, PolicyTestResult } from '@outpost/cedar-authorizer';
export { search, SEARCH_LIMITS } from './search';
export type { SearchQuestion, SearchOutcome } from './search';
export type { SearchCandidate } from './search-candidates';
