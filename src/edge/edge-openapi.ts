import { z } from 'zod';
import { isRequestSchema } from '../decision-protocol';
import { apiErrors, buildOpenApiDocument, type ApiRoute } from '../http';

const readiness = z.strictObject({ status: z.enum(['ready', 'not_ready']), policy: z.boolean(), directory: z.boolean(), engine: z.boolean().optional() });

/** Every route of the edge authorizer. */
export const EDGE_ROUTES: readonly ApiRoute[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } } },
  {
    method: 'get',
    path: '/readyz',
    summary: 'Readiness: a policy image and a directory are loaded and Cedar holds them',
    responses: { 200: { description: 'ready', schema: readiness }, 503: { description: 'not ready', schema: readiness } },
  },
  { method: 'get', path: '/metrics', summary: 'Prometheus metrics', responses: { 200: { description: 'text exposition format', contentType: 'text/plain' } } },
  {
    method: 'post',
    path: '/api/v2/authz/is',
    summary: 'Topaz-shaped decision: is this identity allowed <policy>.<action> on this resource?',
    requestBody: { content: { 'application/json': isRequestSchema } },
    responses: {
      200: { description: 'one answer per decision asked', schema: z.strictObject({ decisions: z.array(z.strictObject({ decision: z.string(), is: z.boolean() })) }) },
      ...apiErrors({ 400: 'malformed request, invalid identity, or a policy/decision this edge does not serve', 413: 'body over 16 kB', 503: 'not ready, or the IdP keys are unavailable' }),
    },
  },
];

/** The edge authorizer's OpenAPI 3.1 document, served at `/openapi.json`. */
export const EDGE_OPENAPI = buildOpenApiDocument(
  { title: 'Outpost edge authorizer', version: '0.1.0', description: 'A sidecar with no authentication of its own: keep it on loopback or a private network.' },
  EDGE_ROUTES,
);
