import { z } from 'zod';
import { directoryDataSchema } from '../directory';
import { apiErrors, type ApiRoute } from '../http';
import { EXEC_OUTCOMES, broadcastResultSchema } from '../relay';
import { ACCOUNT_KINDS, MEMBER_ROLES } from './account';
import { consoleMemberSchema } from './console-member-routes';
import { CONSOLE_PAGE_PATH } from './console-page';
import { consoleConnectionSchema } from './console-connection-routes';
import { decisionsPageSchema, tryDecisionBodySchema } from './decision-routes';
import { CONSOLE_API_PATH, consoleCommandSchema } from './console-routes';

const TENANT = `${CONSOLE_API_PATH}/tenants/{tenantId}`;
const AUTH = { 401: 'no access token, or not one the IdP issued to the console (wrong audience, ID token, expired)' };
const MEMBER = { ...AUTH, 404: 'no such tenant among your accounts (another tenant looks the same)' };
const ROLE = (least: string) => ({ ...MEMBER, 403: `your role is below ${least}` });

const role = z.enum(MEMBER_ROLES);
const kind = z.enum(ACCOUNT_KINDS);
/** A policy's stored images, newest first, and its `latest` digest (the admin API's and the console's listing). */
export const policyVersionsSchema = z.strictObject({
  name: z.string(),
  latest: z.string().nullable(),
  images: z.array(z.strictObject({ digest: z.string(), created_at: z.string(), signed: z.boolean(), signed_version: z.number().int().nullable() })),
});
/** A name and e-mail from the tenant's own directory beside an id; null when the directory has none for it. */
const nameOrNull = z.string().nullable();
const revision = z.strictObject({ revision: z.number().int() });
const registration = z.object({ id: z.string(), info: z.object({ connection_id: z.string(), connected: z.boolean() }).loose() });

/** The console's JSON API (docs/reference/api.md, Console API), for the control plane's document. */
export const CONSOLE_ROUTES: readonly ApiRoute[] = [
  {
    method: 'get',
    path: `${CONSOLE_PAGE_PATH}/config.json`,
    summary: "Where and as whom the console's page signs in (the page itself is static files under /console/)",
    responses: { 200: { description: 'the IdP and the client id', schema: z.strictObject({ auth_url: z.string(), client_id: z.string() }) } },
  },
  {
    method: 'get',
    path: `${CONSOLE_API_PATH}/me`,
    summary: 'The signed-in user and every account they belong to, with their role (the tenant switcher)',
    responses: {
      200: {
        description: 'the user and their accounts',
        schema: z.strictObject({
          user: z.strictObject({ id: z.string() }),
          accounts: z.array(z.strictObject({ tenant_id: z.string(), name: z.string(), kind, role })),
        }),
      },
      ...apiErrors(AUTH),
    },
  },
  {
    method: 'get',
    path: TENANT,
    summary: "A tenant's id, name and kind, the caller's role, and an organization's members",
    responses: {
      200: {
        description: 'the tenant',
        schema: z.strictObject({
          id: z.string(),
          name: z.string(),
          kind,
          role,
          members: z.array(z.strictObject({ user_id: z.string(), role, since: z.string(), name: nameOrNull, email: nameOrNull })).optional(),
        }),
      },
      ...apiErrors(MEMBER),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/authorizers`,
    summary: "The tenant's registered edges, as the relay's instance_registrations lists them (page_size, page_token)",
    responses: {
      200: { description: 'one page of registrations', schema: z.strictObject({ result: z.array(registration), next_page_token: z.string().optional() }) },
      ...apiErrors({ 400: 'bad page_size or page_token', ...MEMBER }),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/authorizers/{instanceId}/commands`,
    summary: 'Send discovery or sync_edge_directory through the relay (admin, owner); answers once the edge confirms',
    requestBody: { content: { 'application/json': consoleCommandSchema } },
    responses: {
      200: { description: 'the edge confirmed', schema: z.strictObject({ result: z.strictObject({}) }) },
      ...apiErrors({
        400: 'bad instance id or body',
        ...ROLE('admin'),
        404: 'no such tenant among your accounts, or no such instance for it',
        ...EXEC_OUTCOMES,
      }),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/authorizers/commands`,
    summary: 'Sync all: send discovery or sync_edge_directory to every connected edge of the tenant (admin, owner), as the relay broadcast does',
    requestBody: { content: { 'application/json': consoleCommandSchema } },
    responses: {
      200: { description: 'sent, confirmed, failed (id and code) and not connected edges', schema: broadcastResultSchema },
      ...apiErrors({
        400: 'bad body',
        ...ROLE('admin'),
        404: 'no such tenant among your accounts',
        409: 'more connected edges than one broadcast may reach',
        429: 'the tenant already runs as many broadcasts as it may',
        503: 'the relay is shutting down, storage is unavailable, or (cluster mode) routing between nodes is unavailable',
      }),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/connections`,
    summary: "The tenant's edge connections, and where its Discovery API key stands (stored as a hash only)",
    responses: {
      200: {
        description: 'the connections',
        schema: z.strictObject({
          tenant_id: z.string(),
          connections: z.array(z.strictObject({ connection_id: z.string(), policy_name: z.string(), label: z.string().nullable() })),
          discovery_api_key: z.strictObject({ stored: z.literal('sha256_only'), rotate: z.string() }),
        }),
      },
      ...apiErrors(MEMBER),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/connections`,
    summary: 'Create an edge connection for a pushed policy, optionally labelled with what it serves (admin, owner); its secret is shown this once',
    requestBody: { content: { 'application/json': consoleConnectionSchema } },
    responses: {
      201: {
        description: 'the new connection and its secret',
        schema: z.strictObject({ connection_id: z.string(), policy_name: z.string(), label: z.string().nullable(), connection_secret: z.string() }),
      },
      ...apiErrors({
        400: 'bad body, policy name or label (1-64 characters, no control characters)',
        ...ROLE('admin'),
        404: 'no such tenant among your accounts, or no policy of that name',
        409: 'the tenant already has 100 connections',
        413: 'body over 4 kB',
      }),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/discovery-key/rotate`,
    summary: 'Replace the Discovery API key (admin, owner); the new key is shown this once, the old one stops working',
    responses: { 200: { description: 'the new key', schema: z.strictObject({ discovery_api_key: z.string() }) }, ...apiErrors({ 400: 'a body was sent: the route takes none', ...ROLE('admin') }) },
  },
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
      ...apiErrors({ 400: 'bad before', ...MEMBER }),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/decisions`,
    summary: "The tenant's decision records, newest first, as the admin API lists them (any member)",
    responses: { 200: { description: 'one page and the cursor of the next', schema: decisionsPageSchema }, ...apiErrors({ 400: 'a bad or unknown query parameter', ...MEMBER }) },
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
      ...apiErrors({
        400: 'malformed body or instance id',
        ...MEMBER,
        409: 'the instance is not connected (or, in cluster mode, connected to another node)',
        429: 'too many tried decisions waiting on the instance',
        502: 'the edge could not decide (no image or directory yet, or a request its policy cannot take)',
        503: 'the relay is shutting down',
        504: 'no answer within the exec timeout',
      }),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/decisions/stream`,
    summary: 'New decision records as server-sent events (event: decision, id, data: the record), after `after` or Last-Event-ID, else from now; the listing\'s filters; ends after 5 minutes (reconnect with the last id)',
    responses: {
      200: { description: 'text/event-stream' },
      ...apiErrors({ 400: 'a bad or unknown query parameter', ...MEMBER, 429: 'too many streams open for this user (5), this tenant (20) or this node (100)' }),
    },
  },
  {
    method: 'put',
    path: `${TENANT}/members/{userId}`,
    summary: "Add a member or change a member's role (owner)",
    requestBody: { content: { 'application/json': consoleMemberSchema } },
    responses: {
      200: { description: 'the member', schema: z.strictObject({ user_id: z.string(), role }) },
      ...apiErrors({ 400: 'bad user id or role', ...ROLE('owner'), 409: 'it would leave no owner, change a personal account, or exceed 1,000 members' }),
    },
  },
  {
    method: 'delete',
    path: `${TENANT}/members/{userId}`,
    summary: 'Remove a member (owner)',
    responses: {
      204: { description: 'removed' },
      ...apiErrors({ 400: 'bad user id', ...ROLE('owner'), 404: 'no such tenant among your accounts, or no such member', 409: 'it would leave no owner, or change a personal account' }),
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
        ...apiErrors({ 400: 'bad user or role, or no such role', ...ROLE('admin'), 404: 'no such tenant among your accounts, or no such user' }),
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
      ...apiErrors({ 400: 'invalid policy name', ...MEMBER, 404: 'no such tenant among your accounts, or no such policy' }),
    },
  },
  {
    method: 'get',
    path: `${TENANT}/policies/{name}/images/{digest}`,
    summary: "One stored image's files (read-only)",
    responses: {
      200: { description: 'the image', schema: z.strictObject({ name: z.string(), digest: z.string(), files: z.record(z.string(), z.string()) }) },
      ...apiErrors({ 400: 'invalid policy name or digest', ...MEMBER, 404: 'no such tenant among your accounts, or no such image' }),
    },
  },
];
