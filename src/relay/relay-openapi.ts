import { z } from 'zod';
import { apiErrors, oauthErrorSchema, type ApiRoute } from '../http';
import { COMMANDS } from '../relay-protocol';
import { BROADCAST_LIMITS } from './broadcast';
import { BROADCAST_PATH, EXEC_PATH } from './command-routes';
import { INSTANCE_REGISTRATIONS_PATH, METRICS_PATH } from './management-router';

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

const UNAUTHORIZED = { 401: 'missing or wrong tenant id or Discovery API key' };

/** How an exec ends besides 200 and the caller's own mistakes: the same wherever a command is sent (§4.2, the console). */
export const EXEC_OUTCOMES = {
  409: 'registered but not connected, or disconnected while waiting',
  413: 'body over 4 kB',
  429: 'too many commands waiting on the instance',
  502: 'the edge reported a failure',
  503: 'the relay is shutting down, storage is unavailable, or (cluster mode) routing between nodes is unavailable',
  504: 'no confirmation within the exec timeout',
} as const;

/** The relay management API (docs/service-interface.md §4.2–§4.3), for the control plane's document. */
export const RELAY_ROUTES: readonly ApiRoute[] = [
  {
    method: 'post',
    path: EXEC_PATH,
    summary: 'Send discovery or sync_edge_directory to an instance; answers once the edge confirms',
    requestBody: { content: { 'application/json': execBody } },
    responses: {
      200: { description: 'the edge confirmed', schema: z.strictObject({ result: z.strictObject({}) }) },
      ...apiErrors({
        400: 'malformed body or unknown command',
        ...UNAUTHORIZED,
        404: 'no such instance for this tenant',
        ...EXEC_OUTCOMES,
      }),
    },
  },
  {
    method: 'post',
    path: BROADCAST_PATH,
    summary: `Send discovery or sync_edge_directory to every matching connected edge of the tenant, on every node; answers once all confirmed or the exec timeout passed (at most ${BROADCAST_LIMITS.maxEdges} edges)`,
    requestBody: { content: { 'application/json': broadcastBody } },
    responses: {
      200: { description: 'sent, confirmed, failed (id and code) and not connected edges', schema: broadcastResultSchema },
      ...apiErrors({
        400: 'malformed body, unknown command or unknown filter member',
        ...UNAUTHORIZED,
        409: `more than ${BROADCAST_LIMITS.maxEdges} connected edges match (nothing was sent)`,
        413: 'body over 4 kB',
        429: `the tenant already runs ${BROADCAST_LIMITS.maxConcurrentPerTenant} broadcasts on this node`,
        503: 'the relay is shutting down, storage is unavailable, or (cluster mode) routing between nodes is unavailable',
      }),
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
      ...apiErrors({ 400: 'bad page_size or page_token', ...UNAUTHORIZED, 503: 'storage unavailable, or (cluster mode) routing between nodes is unavailable' }),
    },
  },
  {
    method: 'get',
    path: METRICS_PATH,
    summary: 'Prometheus gauges of connected edges and their drift: per tenant (at most 100) with Bearer METRICS_TOKEN, totals without credentials',
    responses: {
      200: { description: 'text exposition format', contentType: 'text/plain' },
      ...apiErrors({ 400: 'malformed Authorization header', 401: 'not the metrics token' }, oauthErrorSchema),
    },
  },
  {
    method: 'delete',
    path: `${INSTANCE_REGISTRATIONS_PATH}/{id}`,
    summary: 'Release an instance id so another edge connection of the tenant may register it',
    responses: {
      204: { description: 'released' },
      ...apiErrors({
        ...UNAUTHORIZED,
        404: 'no such instance for this tenant',
        409: 'the instance is connected',
        503: 'storage unavailable, or (cluster mode) routing between nodes is unavailable',
      }),
    },
  },
];
