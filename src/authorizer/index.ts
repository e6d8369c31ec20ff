/**
 * The authorizers a sample app can be given: `edge` (HTTP to a sidecar edge) and `local`
 * (the decision core over `policies/` and a fixed directory); `embedded` (an edge
 * authorizer inside the app, synced by the relay) is `src/embedded-edge`, loaded only by an app
 * that runs one. All answer the decision core's one `Authorizer` interface.
 */
export { AuthorizerUnavailableError } from '@outpost/express-authz';
export type { Authorizer, AuthorizationRequest } from '@outpost/express-authz';
export { openLocalAuthorizer } from '@outpost/cedar-authorizer';
export type { OpenedLocalAuthorizer } from '@outpost/cedar-authorizer';
export { createEdgeAuthorizer, toIsRequest } from './edge-authorizer';
