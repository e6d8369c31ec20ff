/**
 * The authorizers a sample app can be given: `embedded` (an edge authorizer inside the
 * app, synced by the relay), `edge` (HTTP to a sidecar edge) and `local` (the decision
 * core over `policies/` and a fixed directory). All answer the decision core's one
 * `Authorizer` interface.
 */
export { AuthorizerUnavailableError } from '../decision';
export type { Authorizer, AuthorizationRequest } from '../decision';
export { openLocalAuthorizer } from '@outpost/cedar-authorizer';
export type { OpenedLocalAuthorizer } from '@outpost/cedar-authorizer';
export { createEdgeAuthorizer, toIsRequest } from './edge-authorizer';
export { openEmbeddedAuthorizer } from './embedded-authorizer';
export type { EmbeddedAuthorizer } from './embedded-authorizer';
