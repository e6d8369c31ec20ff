import { z } from 'zod';
import { directoryChangeSchema, directoryDataSchema } from '../directory';
import { apiErrors, buildOpenApiDocument, type ApiRoute } from '../http';
import { RELAY_ROUTES } from '../relay';
import { sampledDecisionSchema } from '../relay-protocol';
import { tenantSettingsSchema } from './admin-settings-routes';
import { addSigningKeyBodySchema, signingKeyShape } from './admin-signing-key-routes';
import { CONSOLE_ROUTES, policyVersionsSchema } from './console-openapi';
import { decisionsPageSchema } from './decision-routes';
import { dryRunBodySchema } from './dry-run';
import { pushBodySchema } from './validate-pushed-image';

const ADMIN = '/api/v2/admin';
const ADMIN_ERRORS = { 401: 'missing or wrong tenant id or admin key' };
const EDGE_ERRORS = { 401: 'missing or wrong edge connection credentials' };

const revision = z.strictObject({ revision: z.number().int() });
const directoryWithRevision = directoryDataSchema.extend({ revision: z.number().int().min(0) });
const outcome = z.enum(['allow', 'deny']);

/** A flip's principal by name and e-mail, from the tenant's directory now; null when it has none for the id. */
const principalNames = { principal_name: z.string().nullable(), principal_email: z.string().nullable() };
const dryRunAnswer = z.strictObject({
  name: z.string(),
  instance_id: z.string(),
  candidate_digest: z.string(),
  edge_policy_digest: z.string().nullable(),
  directory_revision: z.number().int().describe('the central directory revision the candidate decided with'),
  sampled: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
  flips: z.strictObject({ allow_to_deny: z.number().int(), deny_to_allow: z.number().int() }),
  changes: z.array(
    z.strictObject({
      principal: z.string(),
      ...principalNames,
      action: z.string(),
      resource: sampledDecisionSchema.shape.resource,
      recorded: outcome,
      candidate: outcome,
      policy_digest: z.string(),
      directory_revision: z.number().int(),
    }),
  ),
  policy_only: z
    .strictObject({
      failed: z.number().int(),
      flips: z.strictObject({ allow_to_deny: z.number().int(), deny_to_allow: z.number().int() }),
      changes: z.array(
        z.strictObject({ principal: z.string(), ...principalNames, action: z.string(), resource: sampledDecisionSchema.shape.resource, current: outcome, candidate: outcome }),
      ),
    })
    .nullable()
    .describe("the candidate against the edge's current image on the same directory: the flips the policy change alone causes; null when the registry does not hold that image"),
});
const policyImage = z.object({ name: z.string(), digest: z.string(), files: z.record(z.string(), z.string()), signature: z.string().optional() });

/** One directory change route: `{revision}` on success, the documented 4xx otherwise. */
function directoryChange(method: 'put' | 'delete', path: string, summary: string): ApiRoute {
  return {
    method,
    path: `${ADMIN}/directory${path}`,
    summary,
    responses: { 200: { description: 'applied; the new directory revision', schema: revision }, ...apiErrors({ 400: 'invalid id, role or relation', ...ADMIN_ERRORS, 404: 'no such user' }) },
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
      ...apiErrors({
        400: "malformed body, invalid name, invalid policy, the image's own tests fail (problems listed), or a missing or invalid signature",
        ...ADMIN_ERRORS,
        409: 'image quota exceeded (`quota_exceeded`), or a signed push whose version is not above the highest accepted for this policy (`stale_signature`, with `highest_version`)',
        413: 'image too large',
      }),
    },
  },
  {
    method: 'post',
    path: `${ADMIN}/policies/{name}/dry-run`,
    summary: "Validate a candidate like a push (nothing stored) and replay one edge's recorded decisions against it: which would flip",
    requestBody: { content: { 'application/json': dryRunBodySchema } },
    responses: {
      200: { description: 'the flips, counted and listed', schema: dryRunAnswer },
      ...apiErrors({
        400: "malformed body, invalid name, invalid policy, or the candidate's own tests fail",
        ...ADMIN_ERRORS,
        404: 'no such instance for this tenant',
        409: 'the instance is not connected, serves another policy, or the tenant has no directory',
        413: 'image too large',
        429: 'too many samples waiting on the instance',
        502: 'the edge failed to send its sample, or sent more than the bounds',
        503: 'the relay is shutting down',
        504: 'no sample within the exec timeout',
      }),
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
      ...apiErrors({ 400: 'invalid policy name', ...ADMIN_ERRORS, 404: 'no such policy' }),
    },
  },
  {
    method: 'post',
    path: `${ADMIN}/signing-keys`,
    summary: 'Register a public key (Ed25519 or P-256 JWK); from then on pushes must be signed',
    requestBody: { content: { 'application/json': addSigningKeyBodySchema } },
    responses: {
      201: { description: 'registered', schema: z.strictObject({ kid: z.string() }) },
      200: { description: 'already registered', schema: z.strictObject({ kid: z.string() }) },
      ...apiErrors({ 400: 'not a public Ed25519 or P-256 JWK, or a weak (small-order) Ed25519 key', ...ADMIN_ERRORS, 409: 'key quota exceeded' }),
    },
  },
  {
    method: 'get',
    path: `${ADMIN}/signing-keys`,
    summary: "The tenant's registered signing keys",
    responses: { 200: { description: 'the keys', schema: z.strictObject({ keys: z.array(signingKeyShape) }) }, ...apiErrors(ADMIN_ERRORS) },
  },
  {
    method: 'delete',
    path: `${ADMIN}/signing-keys/{kid}`,
    summary: 'Remove a signing key',
    responses: { 204: { description: 'removed' }, ...apiErrors({ 400: 'invalid key id', ...ADMIN_ERRORS, 404: 'no such key' }) },
  },
  {
    method: 'get',
    path: `${ADMIN}/settings`,
    summary: "The tenant's settings: push_on_change",
    responses: { 200: { description: 'the settings', schema: tenantSettingsSchema }, ...apiErrors(ADMIN_ERRORS) },
  },
  {
    method: 'put',
    path: `${ADMIN}/settings`,
    summary: 'Turn push on change on or off: each directory change or policy push broadcast to the edges by itself',
    requestBody: { content: { 'application/json': tenantSettingsSchema } },
    responses: { 200: { description: 'the settings now', schema: tenantSettingsSchema }, ...apiErrors({ 400: 'not {"push_on_change": true|false}', ...ADMIN_ERRORS }) },
  },
  {
    method: 'get',
    path: `${ADMIN}/directory`,
    summary: "The tenant's central directory",
    responses: { 200: { description: 'roles, users, resources and revision', schema: directoryWithRevision }, ...apiErrors(ADMIN_ERRORS) },
  },
  {
    method: 'get',
    path: `${ADMIN}/decisions`,
    summary:
      "The tenant's decision records, newest first (query: principal, action, resource, decision, instance, request_id, since; before or after <id>; limit ≤ 500)",
    responses: { 200: { description: 'one page and the cursor of the next', schema: decisionsPageSchema }, ...apiErrors({ 400: 'a bad or unknown query parameter', ...ADMIN_ERRORS }) },
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
    responses: { 200: { description: 'the image', schema: policyImage }, 304: { description: 'unchanged' }, ...apiErrors({ ...EDGE_ERRORS, 404: 'no image yet' }) },
  },
  {
    method: 'get',
    path: '/api/v2/edge/directory',
    summary: 'The full directory snapshot',
    responses: { 200: { description: 'the snapshot', schema: directoryWithRevision }, 304: { description: 'unchanged' }, ...apiErrors(EDGE_ERRORS) },
  },
  {
    method: 'get',
    path: '/api/v2/edge/directory/changes',
    summary: 'Directory changes since a revision (query since=<rev>)',
    responses: {
      200: { description: 'the changes', schema: z.strictObject({ revision: z.number().int(), changes: z.array(directoryChangeSchema) }) },
      ...apiErrors({ 400: 'bad since', ...EDGE_ERRORS, 410: 'too far behind: fetch the snapshot' }),
    },
  },
  ...RELAY_ROUTES,
  ...CONSOLE_ROUTES,
];

/** The control plane's OpenAPI 3.1 document, served at `/openapi.json`. */
export const CONTROL_PLANE_OPENAPI = buildOpenApiDocument(
  { title: 'Outpost control plane and relay', version: '0.1.0', description: 'Admin API (admin key), edge API (connection credentials), relay management API (Discovery API key), console API (the console\'s access token).' },
  CONTROL_PLANE_ROUTES,
);
