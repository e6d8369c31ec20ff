import { z } from 'zod';
import { apiErrorSchema, oauthErrorSchema, type ApiResponse } from '../http';

/**
 * What an app answers a request it refuses: RFC 6750 bearer errors in the OAuth shape
 * (400/401), the policy's 403 and the authorizer's 503 as `{code, message}`.
 */
export const APP_REFUSALS: Readonly<Record<number, ApiResponse>> = {
  400: { description: 'malformed request or Authorization header', schema: z.union([oauthErrorSchema, apiErrorSchema]) },
  401: { description: 'no access token, or not a valid one for this API (WWW-Authenticate says why)', schema: oauthErrorSchema },
  403: { description: 'the policy denies it: Forbidden by policy <path>', schema: apiErrorSchema },
  503: { description: 'the authorizer or the IdP keys are unavailable (fail closed)', schema: z.union([apiErrorSchema, oauthErrorSchema]) },
};

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
