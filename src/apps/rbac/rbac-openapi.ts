import { apiErrors, buildOpenApiDocument, type ApiRoute } from '../../http';
import { APP_REFUSALS, HEALTH_ROUTE, READY_ROUTE } from '../app-openapi';

const METHODS = ['get', 'put', 'post', 'delete'] as const;

/** Every route of the RBAC sample app. */
export const RBAC_ROUTES: readonly ApiRoute[] = [
  HEALTH_ROUTE,
  READY_ROUTE,
  ...METHODS.map(
    (method): ApiRoute => ({
      method,
      path: '/resource/{name}',
      summary: `${method.toUpperCase()} a resource: allowed when the policy permits ${method.toUpperCase()} for the caller's roles`,
      responses: { 200: { description: 'Hello from <METHOD> /resource/<name>', contentType: 'text/plain' }, ...apiErrors(APP_REFUSALS) },
    }),
  ),
];

/** The RBAC app's OpenAPI 3.1 document, served at `/openapi.json`. */
export const RBAC_OPENAPI = buildOpenApiDocument(
  { title: 'Outpost RBAC sample app', version: '0.1.0', description: 'Bearer access tokens (RFC 6750, RFC 9068) and a Cedar policy per route.' },
  RBAC_ROUTES,
);
