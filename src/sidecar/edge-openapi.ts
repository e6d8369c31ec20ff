import { z } from 'zod';
import {
  AUTHZEN_PATHS,
  AUTHZEN_SEARCH_PATHS,
  MAX_SEARCH_PAGE_SIZE,
  authzenConfigurationSchema,
  evaluationRequestSchema,
  evaluationResponseSchema,
  evaluationsRequestSchema,
  isRequestSchema,
  searchRequestSchema,
  searchResponseSchema,
  type SearchKind,
} from '../decision-protocol';
import { apiErrors, buildOpenApiDocument, type ApiRoute } from '../http';

const freshnessErrors = {
  409: 'the caller asked for newer state than the control plane has (`not_fresh`, with what the edge holds)',
  503: 'not ready, the IdP keys are unavailable, or the edge could not catch up in time (`freshness_unavailable`)',
};

/** The three AuthZEN search endpoints (§8); one body schema, each names its own required parts. */
const searchRoute = (kind: SearchKind, needs: string): ApiRoute => ({
  method: 'post',
  path: AUTHZEN_SEARCH_PATHS[kind],
  summary: `AuthZEN 1.0 ${kind} search: every ${kind} that evaluation would permit (${needs}), paged by page.limit / page.token (at most ${MAX_SEARCH_PAGE_SIZE} a page)`,
  requestBody: { content: { 'application/json': searchRequestSchema } },
  responses: {
    200: { description: 'the permitted entities; `page` when the request had one or the page ended early', schema: searchResponseSchema },
    ...apiErrors({ 400: 'malformed request, a missing input entity or id, or a page token issued for another request (`invalid_page_token`), or a body that is not JSON (`unsupported_media_type`)', 413: 'body over 64 kB', ...freshnessErrors }),
  },
});

/** One reason of a decision (`Outpost-Explain: reasons`): the policy's `<file>:<line>` and first comment line, or null and "no policy permits". */
const decisionReason = z.strictObject({ policy: z.string().nullable(), comment: z.string() });

const searchEndpoints = z.object({ search_subject_endpoint: z.string(), search_resource_endpoint: z.string(), search_action_endpoint: z.string() });

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
    summary: "Topaz's REST `Is` call (field names in snake_case or lowerCamelCase): is this identity allowed <policy>.<action> on this resource?",
    requestBody: { content: { 'application/json': isRequestSchema } },
    responses: {
      200: {
        description: 'one answer per decision asked; with `Outpost-Explain: reasons`, each with the policies that determined it',
        schema: z.strictObject({ decisions: z.array(z.strictObject({ decision: z.string(), is: z.boolean(), reasons: z.array(decisionReason).optional() })) }),
      },
      ...apiErrors({ 400: 'malformed request, invalid identity, a policy/decision this edge does not serve, or an `Outpost-Explain` value other than `reasons` (`invalid_explain`)', 413: 'body over 16 kB', 415: 'a body that is not JSON', ...freshnessErrors }),
    },
  },
  {
    method: 'get',
    path: AUTHZEN_PATHS.configuration,
    summary: 'AuthZEN 1.0 PDP metadata',
    responses: { 200: { description: 'the PDP and its endpoints', schema: authzenConfigurationSchema.extend(searchEndpoints.shape) } },
  },
  {
    method: 'post',
    path: AUTHZEN_PATHS.evaluation,
    summary: 'AuthZEN 1.0 access evaluation: may this user do action on resource?',
    requestBody: { content: { 'application/json': evaluationRequestSchema } },
    responses: {
      200: { description: 'the decision', schema: evaluationResponseSchema },
      ...apiErrors({ 400: 'malformed request, a subject type other than user or identity, or a body that is not JSON (`unsupported_media_type`)', 413: 'body over 64 kB', ...freshnessErrors }),
    },
  },
  {
    method: 'post',
    path: AUTHZEN_PATHS.evaluations,
    summary: 'AuthZEN 1.0 access evaluations: a batch with defaults and evaluations_semantic',
    requestBody: { content: { 'application/json': evaluationsRequestSchema } },
    responses: {
      200: {
        description:
          'one decision per evaluation run (fewer when a semantic stops early; an item without subject/action/resource, or refused, is `false` with `context.error`); no or empty `evaluations`: one decision, as /access/v1/evaluation answers',
        schema: z.union([z.object({ evaluations: z.array(evaluationResponseSchema) }), evaluationResponseSchema]),
      },
      ...apiErrors({ 400: 'malformed request, a single question without subject/action/resource, over 64 evaluations, or a body that is not JSON (`unsupported_media_type`)', 413: 'body over 64 kB', ...freshnessErrors }),
    },
  },
  searchRoute('subject', 'needs action and resource.id'),
  searchRoute('resource', 'needs subject.id and action'),
  searchRoute('action', 'needs subject.id and resource.id; no action'),
];

/** The edge authorizer's OpenAPI 3.1 document, served at `/openapi.json`. */
export const EDGE_OPENAPI = buildOpenApiDocument(
  { title: 'Outpost edge authorizer', version: '0.1.0', description: 'A sidecar with no authentication of its own: keep it on loopback or a private network.' },
  EDGE_ROUTES,
);
