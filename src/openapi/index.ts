// OpenAPI, a platform area: the `/openapi.json` of the control plane and its relay, built from
// their route tables and the error-code table (src/http/error-codes.ts), plugged into the control
// plane's hook by its process (src/control-plane-server). The IdP's document lives with the
// IdP's process (src/idp-server), the edge's with the sidecar. The seed's components know none of it.
export { EXEC_OUTCOMES, broadcastResultSchema } from './relay-openapi';
export { ADMIN_AUTH, ADMIN_WRITE, CONTROL_PLANE_ROUTES, controlPlaneOpenApi, policyVersionsSchema } from './control-plane-openapi';
export { controlPlaneOpenApiExtension } from './control-plane-extension';
export type { DocumentedExtension } from './control-plane-extension';
