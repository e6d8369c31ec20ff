// OpenAPI, a platform area: the `/openapi.json` of the seed's components (the IdP, the control
// plane and its relay), built from their route tables and the error-code table
// (src/http/error-codes.ts), plugged into each component's hook by the process that runs it
// (src/idp-server, src/control-plane-server). The seed's components know none of it.
export { openApiRouter } from './openapi-router';
export { IDP_OPENAPI, IDP_ROUTES } from './idp-openapi';
export { EXEC_OUTCOMES, broadcastResultSchema } from './relay-openapi';
export { ADMIN_AUTH, CONTROL_PLANE_ROUTES, controlPlaneOpenApi, policyVersionsSchema } from './control-plane-openapi';
export { controlPlaneOpenApiExtension } from './control-plane-extension';
export type { DocumentedExtension } from './control-plane-extension';
