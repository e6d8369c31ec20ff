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
import { apiErrors, badRequest, buildOpenApiDocument, type ApiRoute, type RouteError } from '../http';

/** What every decision endpoint may answer besides its own refusals: its freshness demand and its readiness. */
const DECIDING: readonly RouteError[] = [
  'invalid_freshness',
  { code: 'not_fresh', when: 'the caller asked for newer state than the control plane has (the body adds what the edge holds)' },
  'freshness_unavailable',
  'not_ready',
  'authorizer_unavailable',
];
/** A body that is not JSON: 400 on the AuthZEN endpoints (the certification asks it), 415 elsewhere. */
const NOT_JSON_400: RouteError = { code: 'unsupported_media_type', status: 400, when: 'a body that is not JSON' };
const tooLarge = (kB: number): RouteError => ({ code: 'payload_too_large', when: `body over ${kB} kB` });

/** The three AuthZEN search endpoints (§8); one body schema, each names its own required parts. */
const searchRoute = (kind: SearchKind, needs: string): ApiRoute => ({
  method: 'post',
  path: AUTHZEN_SEARCH_PATHS[kind],
  summary: `AuthZEN 1.0 ${kind} search: every ${kind} that evaluation would permit (${needs}), paged by page.limit / page.token (at most ${MAX_SEARCH_PAGE_SIZE} a page)`,
  requestBody: { content: { 'application/json': searchRequestSchema } },
  responses: {
    200: { description: 'the permitted entities; `page` when the request had one or the page ended early', schema: searchResponseSchema },
    ...apiErrors([badRequest('malformed request, or a missing input entity or id'), 'invalid_page_token', NOT_JSON_400, tooLarge(64), ...DECIDING]),
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
      ...apiErrors([
        badRequest('malformed request, or a field named in both spellings'),
        'invalid_identity',
        { code: 'unknown_policy', status: 400, when: 'a policy this edge does not serve' },
        'unknown_decision',
        'invalid_explain',
        'invalid_property',
        tooLarge(16),
        { code: 'unsupported_media_type', when: 'a body that is not JSON' },
        'jwks_unavailable',
        ...DECIDING,
      ]),
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
      ...apiErrors([badRequest('malformed request'), 'unknown_subject_type', 'invalid_explain', 'invalid_property', NOT_JSON_400, tooLarge(64), ...DECIDING]),
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
      ...apiErrors([badRequest('malformed request, a single question without subject/action/resource, or over 64 evaluations'), 'unknown_subject_type', 'invalid_explain', 'invalid_property', NOT_JSON_400, tooLarge(64), ...DECIDING]),
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
