/**
 * The authorizers a sample app can be given: `local` (the decision core in-process over
 * `policies/`) and `edge` (HTTP to an edge authorizer). Both answer the one `Authorizer`
 * interface of the decision core.
 */
export { AuthorizerUnavailableError } from '../decision';
export type { Authorizer, AuthorizationRequest, AuthorizationDecision } from '../decision';
export { openLocalAuthorizer } from './open-local-authorizer';
export type { OpenedLocalAuthorizer } from './open-local-authorizer';
export { createEdgeAuthorizer, toIsRequest } from './edge-authorizer';

