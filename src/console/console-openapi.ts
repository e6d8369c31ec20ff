import { z } from 'zod';
import { apiErrors, badRequest, type ApiRoute } from '../http';
import { EXEC_OUTCOMES, broadcastResultSchema } from '../openapi';
import { ACCOUNT_KINDS, MEMBER_ROLES } from '../control-plane';
import { consoleMemberSchema } from './console-member-routes';
import { CONSOLE_PAGE_PATH } from './console-page';
import { consoleConnectionSchema } from './console-connection-routes';
import { AUTH, MEMBER, ROLE, TENANT } from './console-openapi-errors';
import { CONSOLE_RECORD_ROUTES, nameOrNull } from './console-records-openapi';
import { CONSOLE_API_PATH, consoleCommandSchema } from './console-routes';

const role = z.enum(MEMBER_ROLES);
const kind = z.enum(ACCOUNT_KINDS);
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
      ...apiErrors([badRequest('bad page_size or page_token'), ...MEMBER]),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/authorizers/{instanceId}/commands`,
    summary: 'Send discovery or sync_edge_directory through the relay (admin, owner); answers once the edge confirms',
    requestBody: { content: { 'application/json': consoleCommandSchema } },
    responses: {
      200: { description: 'the edge confirmed', schema: z.strictObject({ result: z.strictObject({}) }) },
      ...apiErrors([badRequest('bad instance id or body'), 'unknown_command', ...ROLE('admin'), 'instance_not_found', ...EXEC_OUTCOMES]),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/authorizers/commands`,
    summary: 'Sync all: send discovery or sync_edge_directory to every connected edge of the tenant (admin, owner), as the relay broadcast does',
    requestBody: { content: { 'application/json': consoleCommandSchema } },
    responses: {
      200: { description: 'sent, confirmed, failed (id and code) and not connected edges', schema: broadcastResultSchema },
      ...apiErrors([badRequest('bad body'), 'unknown_command', ...ROLE('admin'), 'too_many_edges', 'too_many_broadcasts', 'relay_closing', 'storage_unavailable', 'routing_unavailable']),
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
      ...apiErrors([badRequest('bad body, policy name or label (1-64 characters, no control characters)'), ...ROLE('admin'), 'unknown_policy', 'too_many_connections', 'payload_too_large']),
    },
  },
  {
    method: 'post',
    path: `${TENANT}/discovery-key/rotate`,
    summary: 'Replace the Discovery API key (admin, owner); the new key is shown this once, the old one stops working',
    responses: { 200: { description: 'the new key', schema: z.strictObject({ discovery_api_key: z.string() }) }, ...apiErrors([badRequest('a body was sent: the route takes none'), ...ROLE('admin')]) },
  },
  {
    method: 'put',
    path: `${TENANT}/members/{userId}`,
    summary: "Add a member or change a member's role (owner)",
    requestBody: { content: { 'application/json': consoleMemberSchema } },
    responses: {
      200: { description: 'the member', schema: z.strictObject({ user_id: z.string(), role }) },
      ...apiErrors([badRequest('bad user id or role'), ...ROLE('owner'), 'last_owner', 'personal_account', 'too_many_members']),
    },
  },
  {
    method: 'delete',
    path: `${TENANT}/members/{userId}`,
    summary: 'Remove a member (owner)',
    responses: {
      204: { description: 'removed' },
      ...apiErrors([badRequest('bad user id'), ...ROLE('owner'), 'member_not_found', 'last_owner', 'personal_account']),
    },
  },
  ...CONSOLE_RECORD_ROUTES,
];
