import { z } from 'zod';
import { directoryDataSchema } from '../directory';
import { apiErrors, badRequest, type ApiRoute, type RouteError } from '../http';
import { policyVersionsSchema } from '../openapi';
import { MEMBER, ROLE, TENANT } from './console-openapi-errors';
import { decisionsPageSchema } from '../decision-store';
import { tryDecisionBodySchema } from './console-decision-routes';

/** A name and e-mail from the tenant's own directory beside an id; null when the directory has none for it. */
export const nameOrNull = z.string().nullable();
const revision = z.strictObject({ revision: z.number().int() });

/** The console API's records of a tenant: audit log, decisions, directory and policies (docs/reference/api.md, Console API). */
export const CONSOLE_RECORD_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: `${TENANT}/audit`,
    summary: "The tenant's audit log (console users' changes and the admin key's), newest first, 100 a page (before=<entry id> for older ones)",
    responses: {
      200: {
        description: 'audit entries',
        schema: z.strictObject({
          entries: z.array(
            z.strictObject({
              id: z.number().int(),
              actor: z.string(),
              actor_kind: z.enum(['user', 'admin_key', 'cli']),
              actor_name: nameOrNull,
              actor_email: nameOrNull,
              action: z.string(),
              target: z.string().nullable(),
              target_name: nameOrNull,
              target_email: nameOrNull,
              outcome: z.string(),
              at: z.string(),
            }),
          ),
        }),
      },
      ...apiErrors([badRequest('bad before'), ...MEMBER]),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/decisions`,
    summary: "The tenant's decision records, newest first, as the admin API lists them (any member)",
    responses: { 200: { description: 'one page and the cursor of the next', schema: decisionsPageSchema }, ...apiErrors([badRequest('a bad or unknown query parameter'), ...MEMBER]) },
  },
  {
    method: 'post',
    path: `${TENANT}/decisions/try`,
    summary: 'Try a decision: one edge of the tenant decides the request over the relay, from its current image and directory, and records nothing (any member)',
    requestBody: { content: { 'application/json': tryDecisionBodySchema } },
    responses: {
      200: {
        description: 'the decision, why, and the state it was made from',
        schema: z.strictObject({
          principal: z.strictObject({ id: z.string(), email: z.string().optional() }),
          decision: z.enum(['allow', 'deny']),
          reasons: z.array(z.strictObject({ policy: z.string().nullable(), comment: z.string() })),
          policy_digest: z.string(),
          directory_revision: z.number().int(),
        }),
      },
      ...apiErrors([
        badRequest('malformed body or instance id'),
        'unknown_query_parameter',
        ...MEMBER,
        { code: 'not_found', when: 'trying decisions is not served here' },
        'instance_not_found',
        { code: 'instance_not_connected', when: 'the instance is not connected (or, in cluster mode, connected to another node)' },
        'instance_disconnected',
        'too_many_pending',
        'edge_error',
        ...(['no_image', 'no_directory', 'try_failed'] as const).map((code): RouteError => ({ code, status: 502 })),
        'relay_closing',
        'edge_timeout',
      ]),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/decisions/stream`,
    summary: 'New decision records as server-sent events (event: decision, id, data: the record), after `after` or Last-Event-ID, else from now; the listing\'s filters; ends after 5 minutes (reconnect with the last id)',
    responses: {
      200: { description: 'text/event-stream' },
      ...apiErrors([badRequest('a bad or unknown query parameter'), ...MEMBER, { code: 'too_many_streams', when: 'too many streams open for this user (5), this tenant (20) or this node (100)' }]),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/directory`,
    summary: "The tenant's central directory: users with their roles, roles with what they include, resource relations, and the revision",
    responses: { 200: { description: 'the directory', schema: directoryDataSchema.extend({ revision: z.number().int() }).strict() }, ...apiErrors(MEMBER) },
  },
  ...(['put', 'delete'] as const).map(
    (method): ApiRoute => ({
      method,
      path: `${TENANT}/directory/users/{userId}/roles/{role}`,
      summary: `${method === 'put' ? 'Grant' : 'Revoke'} a directory role (admin, owner): the admin API's change, the next revision`,
      responses: {
        200: { description: 'the directory revision after the change', schema: revision },
        ...apiErrors([badRequest('bad user id or role'), 'unknown_role', ...ROLE('admin'), 'unknown_user']),
      },
    }),
  ),
  {
    method: 'get',
    path: `${TENANT}/policies`,
    summary: "The tenant's policy names, each with the digest its latest tag points at and whether that image is signed",
    responses: {
      200: {
        description: 'the policies, by name',
        schema: z.strictObject({ policies: z.array(z.strictObject({ name: z.string(), digest: z.string(), signed: z.boolean() })) }),
      },
      ...apiErrors(MEMBER),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/policies/{name}`,
    summary: "A policy's stored images (digest, pushed at, signed and the signed version), newest first, and its latest digest",
    responses: {
      200: { description: 'the images', schema: policyVersionsSchema },
      ...apiErrors([badRequest('invalid policy name'), ...MEMBER, 'unknown_policy']),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/policies/{name}/images/{digest}`,
    summary: "One stored image's files (read-only)",
    responses: {
      200: { description: 'the image', schema: z.strictObject({ name: z.string(), digest: z.string(), files: z.record(z.string(), z.string()) }) },
      ...apiErrors([badRequest('invalid policy name or digest'), ...MEMBER, 'unknown_image']),
    },
  },
];
