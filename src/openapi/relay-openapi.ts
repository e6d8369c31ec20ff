import { z } from 'zod';
import { apiErrors, badRequest, isCodeAt, type ApiRoute, type RouteError } from '../http';
import { EXEC_PATH } from '../relay';
import { BROADCAST_LIMITS, BROADCAST_PATH, COMMANDS, EDGE_FAILURE_CODES, INSTANCE_REGISTRATIONS_PATH, METRICS_PATH } from '../relay-protocol';

/** The exec body (docs/service-interface.md §2.3), as `parseExecRequest` checks it. */
const execBody = z.object({
  id: z.string().min(1).describe('instance id'),
  command: z.union(COMMANDS.map((name) => z.strictObject({ [name]: z.strictObject({}) }))),
});


const command = z.union(COMMANDS.map((name) => z.strictObject({ [name]: z.strictObject({}) })));

/** The broadcast body, as `parseBroadcastRequest` checks it. */
const broadcastBody = z.object({
  command,
  filter: z
    .strictObject({
      policy_name: z.string().min(1).max(128).optional().describe('only edges serving this policy'),
      stale_only: z.boolean().optional().describe('only edges whose policy digest is not latest or whose directory revision is behind'),
    })
    .optional(),
});

/** The answer of a broadcast, `{"result": …}`: the management API's and the console's. */
export const broadcastResultSchema = z.strictObject({
  result: z.strictObject({
    sent: z.number().int().min(0).describe('connected matching edges the command was sent to'),
    confirmed: z.number().int().min(0).describe('of those, the ones that confirmed before the deadline'),
    failed: z.array(z.strictObject({ id: z.string(), code: z.string().describe("exec's error code for that edge's outcome") })),
    not_connected: z.number().int().min(0).describe('registered matching edges no node holds a socket for'),
  }),
});

const registration = z.object({
  id: z.string(),
  info: z.object({
    connection_id: z.string(),
    hostname: z.string(),
    version: z.string(),
    policy_name: z.string(),
    policy_digest: z.string().nullable(),
    directory_revision: z.number().int(),
    connected: z.boolean(),
    connected_at: z.string(),
    last_seen: z.string(),
    latest_policy_digest: z.string().nullable().describe("the `latest` digest of the connection's policy"),
    policy_drift: z.boolean().describe('policy_digest is not latest_policy_digest'),
    central_directory_revision: z.number().int().nullable(),
    directory_lag: z.number().int().min(0).describe('revisions the edge is behind the central directory'),
    node: z.string().nullable().optional().describe('cluster mode only: the control-plane node holding the socket (null when none)'),
  }),
});

const UNAUTHORIZED: RouteError = { code: 'unauthorized', when: 'missing or wrong tenant id or Discovery API key' };
const STORAGE: readonly RouteError[] = ['storage_unavailable', { code: 'routing_unavailable', when: 'cluster mode: routing between nodes is unavailable' }];

/** How an exec ends besides 200 and the caller's own mistakes: the same wherever a command is sent (§4.2, the console). */
export const EXEC_OUTCOMES: readonly RouteError[] = [
  'instance_not_connected',
  'instance_disconnected',
  { code: 'payload_too_large', when: 'body over 4 kB' },
  'too_many_pending',
  'edge_error',
  ...[...EDGE_FAILURE_CODES].filter((code) => isCodeAt(code, 502)).map((code): RouteError => ({ code, status: 502 })),
  'relay_closing',
  ...STORAGE,
  'edge_timeout',
];

/** The relay management API (docs/service-interface.md §4.2–§4.3), for the control plane's document. */
export const RELAY_ROUTES: readonly ApiRoute[] = [
  {
    method: 'post',
    path: EXEC_PATH,
    summary: 'Send discovery or sync_edge_directory to an instance; answers once the edge confirms',
    requestBody: { content: { 'application/json': execBody } },
    responses: {
      200: { description: 'the edge confirmed', schema: z.strictObject({ result: z.strictObject({}) }) },
      ...apiErrors([badRequest('malformed body'), 'unknown_command', UNAUTHORIZED, 'instance_not_found', ...EXEC_OUTCOMES]),
    },
  },
  {
    method: 'post',
    path: BROADCAST_PATH,
    summary: `Send discovery or sync_edge_directory to every matching connected edge of the tenant, on every node; answers once all confirmed or the exec timeout passed (at most ${BROADCAST_LIMITS.maxEdges} edges)`,
    requestBody: { content: { 'application/json': broadcastBody } },
    responses: {
      200: { description: 'sent, confirmed, failed (id and code) and not connected edges', schema: broadcastResultSchema },
      ...apiErrors([
        badRequest('malformed body or unknown filter member'),
        'unknown_command',
        UNAUTHORIZED,
        { code: 'too_many_edges', when: `more than ${BROADCAST_LIMITS.maxEdges} connected edges match (nothing was sent)` },
        { code: 'payload_too_large', when: 'body over 4 kB' },
        { code: 'too_many_broadcasts', when: `the tenant already runs ${BROADCAST_LIMITS.maxConcurrentPerTenant} broadcasts on this node` },
        'relay_closing',
        ...STORAGE,
      ]),
    },
  },
  {
    method: 'get',
    path: INSTANCE_REGISTRATIONS_PATH,
    summary: "The tenant's instance registrations, paged with page_size and page_token",
    responses: {
      200: {
        description: 'one page of registrations; next_page_token when more remain',
        schema: z.strictObject({ result: z.array(registration), next_page_token: z.string().optional() }),
      },
      ...apiErrors([badRequest('bad page_size or page_token'), UNAUTHORIZED, ...STORAGE]),
    },
  },
  {
    method: 'get',
    path: METRICS_PATH,
    summary: 'Prometheus gauges of connected edges and their drift: per tenant (at most 100) with Bearer METRICS_TOKEN, totals without credentials',
    responses: {
      200: { description: 'text exposition format', contentType: 'text/plain' },
      ...apiErrors([{ code: 'invalid_request', when: 'malformed Authorization header' }, { code: 'invalid_token', when: 'not the metrics token' }, { code: 'unauthorized', when: 'another scheme than Bearer' }], 'oauth'),
    },
  },
  {
    method: 'delete',
    path: `${INSTANCE_REGISTRATIONS_PATH}/{id}`,
    summary: 'Release an instance id so another edge connection of the tenant may register it',
    responses: {
      204: { description: 'released' },
      ...apiErrors([UNAUTHORIZED, 'instance_not_found', 'instance_connected', ...STORAGE]),
    },
  },
];
