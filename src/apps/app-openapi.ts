import { z } from 'zod';
import type { RouteError } from '../http';

/** The bearer layer's refusals (RFC 6750, in the OAuth shape), before any policy is asked. */
export const APP_BEARER: readonly RouteError[] = [
  { code: 'invalid_request', shape: 'oauth', when: 'a malformed Authorization header, or a token sent more than one way' },
  { code: 'unauthorized', shape: 'oauth', when: 'no access token (WWW-Authenticate names the realm)' },
  { code: 'invalid_token', shape: 'oauth', when: 'not a valid access token for this API (WWW-Authenticate says why)' },
  { code: 'temporarily_unavailable', shape: 'oauth', when: "the IdP's keys cannot be fetched" },
];

/**
 * What an app answers a request it refuses: the bearer errors, then the policy's 403 and the
 * authorizer's 400/503 as `{code, message}`.
 */
export const APP_REFUSALS: readonly RouteError[] = [
  ...APP_BEARER,
  'bad_request',
  'invalid_property',
  { code: 'forbidden', when: 'the policy denies it: Forbidden by policy <path>' },
  { code: 'authorizer_unavailable', when: 'the authorizer cannot answer (fail closed)' },
];

const readiness = z.object({ status: z.enum(['ready', 'not_ready']), authorizer: z.enum(['embedded', 'edge', 'local']) });

/** `GET /readyz` of every app: whether its authorizer can decide now. */
export const READY_ROUTE = {
  method: 'get',
  path: '/readyz',
  summary: 'Readiness: the authorizer can decide (an embedded edge has a policy image and a directory)',
  responses: { 200: { description: 'ready', schema: readiness }, 503: { description: 'not ready yet: decisions answer 503', schema: readiness } },
} as const;

/** `GET /healthz` of every app. */
export const HEALTH_ROUTE = {
  method: 'get',
  path: '/healthz',
  summary: 'Liveness',
  responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } },
} as const;
