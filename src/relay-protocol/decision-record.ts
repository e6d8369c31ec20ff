import { z } from 'zod';

/**
 * Bounds of decision records (docs/reference/api.md, "Decision records"): each text field,
 * the reasons of one record and the records of one `decisions` frame. An edge cuts text to
 * these lengths before it sends; the relay refuses a frame outside them as a bad frame.
 */
export const DECISION_RECORD_LIMITS = Object.freeze({
  maxText: 256,
  maxReasons: 8,
  maxReasonComment: 200,
  maxRecordsPerFrame: 100,
});

const DIGEST = /^sha256:[0-9a-f]{64}$/;
/** No control or format characters: records are shown in terminals and pages. */
const DISPLAY_SAFE = /^[^\p{Cc}\p{Cf}]*$/u;
const text = (max: number) => z.string().max(max).regex(DISPLAY_SAFE, 'must not contain control or format characters');
const id = text(DECISION_RECORD_LIMITS.maxText).min(1);

/** One reason: a determining policy (`<file>:<line>`) and its first comment line, or `null` and "no policy permits". */
export const decisionReasonSchema = z.strictObject({
  policy: id.nullable(),
  comment: text(DECISION_RECORD_LIMITS.maxReasonComment),
});

/**
 * One decision as an edge reports it. The instance and the tenant are not in it: the relay
 * knows them from the connection the frame came on, and never takes an edge's word for them.
 * The principal is the directory user id (never a token), with the e-mail the directory holds.
 */
export const decisionRecordSchema = z.strictObject({
  /** When the decision was made, epoch milliseconds. */
  time: z.number().int().min(0),
  /** The request id of the HTTP request the decision answered (`X-Request-Id`). */
  request_id: id,
  /** What asked: `sidecar` or the name of the app whose embedded edge decided. */
  app: text(64).min(1),
  principal: z.strictObject({ id, email: text(DECISION_RECORD_LIMITS.maxText).optional() }),
  action: id,
  resource: z.strictObject({ type: id, id }),
  decision: z.enum(['allow', 'deny']),
  reasons: z.array(decisionReasonSchema).max(DECISION_RECORD_LIMITS.maxReasons),
  policy_digest: z.string().regex(DIGEST),
  directory_revision: z.number().int().min(0),
  /** Time spent deciding, in microseconds. */
  latency_us: z.number().min(0).max(3_600_000_000),
});

/** The frame an edge sends its records in: unsolicited, batched, at most {@link DECISION_RECORD_LIMITS.maxRecordsPerFrame}. */
export const decisionsFrameSchema = z.object({
  type: z.literal('decisions'),
  records: z.array(decisionRecordSchema).min(1).max(DECISION_RECORD_LIMITS.maxRecordsPerFrame),
});

export type DecisionRecord = z.infer<typeof decisionRecordSchema>;
export type DecisionRecordReason = z.infer<typeof decisionReasonSchema>;
