import { z } from 'zod';
import { decisionsFrameSchema } from './decision-record';
import { displayText, SHA256_DIGEST } from './display-text';
import { tryDecisionFrameSchema, tryResultFrameSchema } from './try-decision';

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

/** The two commands of docs/service-interface.md §2.3. */
export const COMMANDS = ['discovery', 'sync_edge_directory'] as const;
export type CommandName = (typeof COMMANDS)[number];

/**
 * How long a relay waits for a command's result when it does not say (`RELAY_EXEC_TIMEOUT_MS`'s
 * default): what an edge assumes for a `command` frame without `timeout_ms`.
 */
export const DEFAULT_COMMAND_TIMEOUT_MS = 10_000;

const sha256Digest = z.string().regex(SHA256_DIGEST);
const requestId = z.string().min(1).max(64);

/**
 * Free text passed on to an operator (an edge's error message): multi-line text is normal
 * (Cedar errors), so control and format characters become spaces instead of refusing it.
 */
const passedOnText = (max: number) => z.string().max(max).transform((text) => text.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim());

/** Instance ids: what `uuid`s and hostnames are made of, and nothing that prints oddly. */
export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** What the edge reports about itself; kept in its registration. */
export const edgeStatusSchema = z.object({
  policy_name: displayText(64),
  /** Digest of the active policy image, or null before the first image. */
  policy_digest: sha256Digest.nullable(),
  /** Revision of the edge's directory replica, 0 before the first sync. */
  directory_revision: z.number().int().min(0),
});

/**
 * Bounds of a decision sample (docs/reference/api.md, "Dry run"): the entries an edge keeps and may
 * send for one `sample_request`, the frames it may split them into, and each entry's
 * text. An entry the edge recorded beyond these bounds is left out of what it sends.
 */
export const DECISION_SAMPLE_LIMITS = Object.freeze({
  maxEntries: 1000,
  maxChunks: 64,
  maxTextLength: 256,
  maxAttributes: 16,
});

const sampleText = z.string().min(1).max(DECISION_SAMPLE_LIMITS.maxTextLength);

/**
 * One recorded decision: the request as the edge decided it (the principal as its
 * directory id, never a token), the decision, and the image digest and directory
 * revision it was made with.
 */
export const sampledDecisionSchema = z.strictObject({
  principal: sampleText,
  action: sampleText,
  resource: z.strictObject({
    type: sampleText,
    id: sampleText,
    attributes: z
      .record(z.string().max(64), z.union([z.string().max(DECISION_SAMPLE_LIMITS.maxTextLength), z.number(), z.boolean()]))
      .refine((a) => Object.keys(a).length <= DECISION_SAMPLE_LIMITS.maxAttributes, `at most ${DECISION_SAMPLE_LIMITS.maxAttributes} attributes`)
      .optional(),
  }),
  decision: z.enum(['allow', 'deny']),
  policy_digest: sha256Digest,
  directory_revision: z.number().int().min(0),
});

/**
 * The failure codes an edge reports in a failed `command_result` that exec passes on as
 * its 502 code (docs/reference/api.md, "Relay management API"): the edge's own refusals and what the
 * control plane answered it. Any other code becomes `edge_error`, so an edge cannot put
 * arbitrary codes (or exec's own codes, like `unauthorized`) into exec's answers.
 */
export const EDGE_FAILURE_CODES: ReadonlySet<string> = new Set([
  'invalid_image',
  'policy_tests_failed',
  'sync_failed',
  'sample_failed',
  'control_plane_unavailable',
  'bad_response',
  'response_too_large',
  'no_image',
  'no_directory',
  'resync_required',
  'try_failed',
]);

/** Frames the edge sends. */
export const edgeMessageSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('register'),
    /** Stable per edge data directory, across restarts. */
    instance_id: z.string().regex(INSTANCE_ID_PATTERN, 'instance_id must be 1-64 of A-Z a-z 0-9 . _ : -'),
    hostname: displayText(256),
    version: displayText(32),
    status: edgeStatusSchema,
  }),
  /** Sent after every timer-driven sync, so registrations stay current. */
  z.object({ type: z.literal('status'), status: edgeStatusSchema }),
  /**
   * Part of the answer to a `sample_request`: the entries in order; `done` on the last
   * frame, which also carries the edge's status. A failure is a `command_result` with
   * `ok: false` and the request's id.
   */
  z.object({
    type: z.literal('sample_chunk'),
    request_id: requestId,
    entries: z.array(sampledDecisionSchema).max(DECISION_SAMPLE_LIMITS.maxEntries),
    done: z.boolean(),
    status: edgeStatusSchema,
  }),
  /** Decision records, batched and unsolicited (docs/reference/api.md, "Decision records"). */
  decisionsFrameSchema,
  /** The answer to a `try_decision`. */
  tryResultFrameSchema,
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
      error: z.object({ code: displayText(64), message: passedOnText(1024) }),
    }),
  ]),
]);

/** Frames the relay sends. */
export const relayMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('registered'), instance_id: z.string() }),
  /**
   * Run a command now. `timeout_ms` is how long the relay waits for its `command_result`, so
   * the edge can spend that time (retries included) and still answer before exec's 504;
   * an edge that does not know it assumes {@link DEFAULT_COMMAND_TIMEOUT_MS}.
   */
  z.object({ type: z.literal('command'), request_id: requestId, command: z.enum(COMMANDS), timeout_ms: z.number().int().min(1).max(3_600_000).optional() }),
  /** Send the decision sample now, as `sample_chunk` frames. */
  z.object({ type: z.literal('sample_request'), request_id: requestId }),
  /** Decide one request now and answer with `try_result`; no record is written (docs/reference/api.md, "Decision records"). */
  tryDecisionFrameSchema,
  /** Stable error codes: `bad_frame`, `not_registered`, `already_registered`, `unknown_request`. */
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
]);

export type EdgeStatus = z.infer<typeof edgeStatusSchema>;
export type EdgeMessage = z.infer<typeof edgeMessageSchema>;
export type RelayMessage = z.infer<typeof relayMessageSchema>;
export type SampledDecision = z.infer<typeof sampledDecisionSchema>;

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
