import { z } from 'zod';

/**
 * The WebSocket protocol between an edge authorizer and the relay.
 *
 * The edge connects out to `GET /api/v2/relay/edge` with
 * `Authorization: Basic base64(<connection_id>:<connection_secret>)` (RFC 7617); the relay
 * answers 401 before the upgrade when the credentials are wrong. Every frame is one JSON
 * text message of at most {@link MAX_FRAME_BYTES}, checked against these schemas on both
 * sides; liveness uses WebSocket ping/pong.
 */
export const RELAY_PATH = '/api/v2/relay/edge';
export const MAX_FRAME_BYTES = 64 * 1024;

/** The two commands of the service interface (§2.3). */
export const COMMANDS = ['discovery', 'sync_edge_directory'] as const;
export type CommandName = (typeof COMMANDS)[number];

const sha256Digest = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const requestId = z.string().min(1).max(64);
const shortText = z.string().max(256);

/** What the edge reports about itself; kept in its registration. */
export const edgeStatusSchema = z.object({
  policy_name: z.string().max(64),
  /** Digest of the active policy image, or null before the first image. */
  policy_digest: sha256Digest.nullable(),
  /** Revision of the edge's directory replica, 0 before the first sync. */
  directory_revision: z.number().int().min(0),
});

/** Frames the edge sends. */
export const edgeMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('register'),
    /** Stable per edge data directory, across restarts. */
    instance_id: z.string().min(1).max(64),
    hostname: shortText,
    version: z.string().max(32),
    status: edgeStatusSchema,
  }),
  /** Sent after every timer-driven sync, so registrations stay current. */
  z.object({ type: z.literal('status'), status: edgeStatusSchema }),
  // zod needs one variant per `type`, so the two outcomes nest under `ok`.
  z.discriminatedUnion('ok', [
    z.object({
      type: z.literal('command_result'),
      request_id: requestId,
      ok: z.literal(true),
      status: edgeStatusSchema,
    }),
    z.object({
      type: z.literal('command_result'),
      request_id: requestId,
      ok: z.literal(false),
      error: z.object({ code: z.string().max(64), message: z.string().max(1024) }),
    }),
  ]),
]);

/** Frames the relay sends. */
export const relayMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('registered'), instance_id: z.string() }),
  z.object({ type: z.literal('command'), request_id: requestId, command: z.enum(COMMANDS) }),
  /** Stable error codes: `bad_frame`, `not_registered`, `already_registered`, `unknown_request`. */
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
]);

export type EdgeStatus = z.infer<typeof edgeStatusSchema>;
export type EdgeMessage = z.infer<typeof edgeMessageSchema>;
export type RelayMessage = z.infer<typeof relayMessageSchema>;

/** Parses one received frame; `undefined` when it is not JSON or not a known message. */
export function parseFrame<T>(schema: z.ZodType<T>, data: unknown): T | undefined {
  let text: string;
  if (typeof data === 'string') text = data;
  else if (Buffer.isBuffer(data)) text = data.toString('utf8');
  else return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}
