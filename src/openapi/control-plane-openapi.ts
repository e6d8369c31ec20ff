import { z } from 'zod';
import { dryRunAnswerSchema, dryRunBodySchema, pushBodySchema, tenantSettingsSchema } from '../control-plane';
import { directoryChangeSchema, directoryDataSchema } from '../directory';
import { apiErrors, badRequest, buildOpenApiDocument, type ApiRoute, type RouteError } from '../http';
import { RELAY_ROUTES } from './relay-openapi';

/** A policy's stored images, newest first, and its `latest` digest (the admin API's and the console's listing). */
export const policyVersionsSchema = z.strictObject({
  name: z.string(),
  latest: z.string().nullable(),
  images: z.array(z.strictObject({ digest: z.string(), created_at: z.string(), signed: z.boolean(), signed_version: z.number().int().nullable() })),
});

const ADMIN = '/api/v2/admin';
/** The admin key's refusal, as every admin route (and an extension's) documents it. */
export const ADMIN_AUTH: RouteError = { code: 'unauthorized', when: 'missing or wrong tenant id or admin key' };
/** An admin write: the admin key, and no query string. */
export const ADMIN_WRITE: readonly RouteError[] = [ADMIN_AUTH, 'unknown_query_parameter'];
const EDGE_AUTH: RouteError = { code: 'unauthorized', when: 'missing or wrong edge connection credentials' };
const tooLarge: RouteError = { code: 'payload_too_large', when: 'image over 32 files, 64 KiB a file or 128 KiB in all, or over 100 test cases' };

const revision = z.strictObject({ revision: z.number().int() });
const directoryWithRevision = directoryDataSchema.extend({ revision: z.number().int().min(0) });
const policyImage = z.object({ name: z.string(), digest: z.string(), files: z.record(z.string(), z.string()), signature: z.string().optional() });

/** One directory change route: `{revision}` on success, the documented 4xx otherwise. */
function directoryChange(method: 'put' | 'delete', path: string, summary: string): ApiRoute {
  return {
    method,
    path: `${ADMIN}/directory${path}`,
    summary,
    responses: {
      200: { description: 'applied; the new directory revision', schema: revision },
      ...apiErrors([badRequest('invalid id, role or relation'), 'duplicate_email', 'duplicate_identity', 'unknown_role', ...ADMIN_WRITE, 'unknown_user']),
    },
  };
}

/** Every route of the control plane: admin API, edge API, the relay's management API and the console API. */
export const CONTROL_PLANE_ROUTES: readonly ApiRoute[] = [
  { method: 'get', path: '/healthz', summary: 'Liveness', responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } } },
  {
    method: 'post',
    path: `${ADMIN}/policies/{name}`,
    summary: "Push a policy folder's files (or a complete image) and tag it latest",
    requestBody: { content: { 'application/json': pushBodySchema } },
    responses: {
      201: { description: 'stored and tagged', schema: z.strictObject({ name: z.string(), digest: z.string(), tag: z.string() }) },
      200: { description: 'already stored; tagged latest again', schema: z.strictObject({ name: z.string(), digest: z.string(), tag: z.string() }) },
      ...apiErrors([
        badRequest('malformed body or invalid name'),
        'invalid_policy',
        'policy_tests_failed',
        'signature_required',
        'invalid_signature',
        ...ADMIN_WRITE,
        { code: 'quota_exceeded', when: 'the tenant stores 50 images, all tagged' },
        { code: 'stale_signature', when: 'a signed push whose version is not above the highest accepted for this policy (the body adds `highest_version`)' },
        tooLarge,
      ]),
    },
  },
  {
    method: 'post',
    path: `${ADMIN}/policies/{name}/dry-run`,
    summary: "Validate a candidate like a push (nothing stored) and replay one edge's recorded decisions against it: which would flip",
    requestBody: { content: { 'application/json': dryRunBodySchema } },
    responses: {
      200: { description: 'the flips, counted and listed', schema: dryRunAnswerSchema },
      ...apiErrors([
        badRequest('malformed body, invalid name or instance id'),
        'invalid_policy',
        'policy_tests_failed',
        ...ADMIN_WRITE,
        'instance_not_found',
        'instance_not_connected',
        'instance_disconnected',
        'policy_mismatch',
        { code: 'no_directory', status: 409, when: 'the tenant has no central directory' },
        tooLarge,
        { code: 'too_many_pending', when: 'too many samples waiting on the instance' },
        { code: 'edge_error', when: 'the edge sent more than 1,000 entries or 64 frames' },
        { code: 'sample_failed', status: 502 },
        'relay_closing',
        { code: 'edge_timeout', when: 'no sample within the exec timeout' },
      ]),
    },
  },
  {
    method: 'get',
    path: `${ADMIN}/policies/{name}`,
    summary: "A policy's stored images and its latest tag",
    responses: {
      200: {
        description: 'the images, newest first',
        schema: policyVersionsSchema,
      },
      ...apiErrors([badRequest('invalid policy name'), ADMIN_AUTH, 'unknown_policy']),
    },
  },
  {
    method: 'get',
    path: `${ADMIN}/settings`,
    summary: "The tenant's settings: push_on_change",
    responses: { 200: { description: 'the settings', schema: tenantSettingsSchema }, ...apiErrors([ADMIN_AUTH]) },
  },
  {
    method: 'put',
    path: `${ADMIN}/settings`,
    summary: 'Turn push on change on or off: each directory change or policy push broadcast to the edges by itself',
    requestBody: { content: { 'application/json': tenantSettingsSchema } },
    responses: { 200: { description: 'the settings now', schema: tenantSettingsSchema }, ...apiErrors([badRequest('not {"push_on_change": true|false}'), ...ADMIN_WRITE]) },
  },
  {
    method: 'get',
    path: `${ADMIN}/directory`,
    summary: "The tenant's central directory",
    responses: { 200: { description: 'roles, users, resources and revision', schema: directoryWithRevision }, ...apiErrors([ADMIN_AUTH]) },
  },
  directoryChange('put', '/users/{id}', 'Create or update a user'),
  directoryChange('delete', '/users/{id}', 'Delete a user'),
  directoryChange('put', '/users/{id}/roles/{role}', 'Grant a role'),
  directoryChange('delete', '/users/{id}/roles/{role}', 'Revoke a role'),
  directoryChange('put', '/resources/{resource}/relations/{relation}/{userId}', 'Add a relation'),
  directoryChange('delete', '/resources/{resource}/relations/{relation}/{userId}', 'Remove a relation'),
  {
    method: 'get',
    path: '/api/v2/edge/policy-image',
    summary: "The connection's policy image (conditional: If-None-Match with its digest)",
    responses: { 200: { description: 'the image', schema: policyImage }, 304: { description: 'unchanged' }, ...apiErrors([EDGE_AUTH, 'no_image']) },
  },
  {
    method: 'get',
    path: '/api/v2/edge/directory',
    summary: 'The full directory snapshot',
    responses: { 200: { description: 'the snapshot', schema: directoryWithRevision }, 304: { description: 'unchanged' }, ...apiErrors([EDGE_AUTH, 'no_directory']) },
  },
  {
    method: 'get',
    path: '/api/v2/edge/directory/changes',
    summary: 'Directory changes since a revision (query since=<rev>)',
    responses: {
      200: { description: 'the changes', schema: z.strictObject({ revision: z.number().int(), changes: z.array(directoryChangeSchema) }) },
      ...apiErrors([badRequest('bad since'), EDGE_AUTH, 'no_directory', 'resync_required']),
    },
  },
  ...RELAY_ROUTES,
];

const INFO = {
  title: 'Outpost control plane and relay',
  version: '0.1.0',
  description: "Admin API (admin key), edge API (connection credentials), relay management API (Discovery API key), console API (the console's access token).",
};

/**
 * The control plane's OpenAPI 3.1 document, served at `/openapi.json`: its own routes and
 * the relay's, then those of the extensions plugged into it (the console's). Built when asked
 * (once per process: by the extension that serves it), not when this module loads.
 */
export function controlPlaneOpenApi(extensionRoutes: readonly ApiRoute[] = []): ReturnType<typeof buildOpenApiDocument> {
  return buildOpenApiDocument(INFO, [...CONTROL_PLANE_ROUTES, ...extensionRoutes]);
}
