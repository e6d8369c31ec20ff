import { z } from 'zod';
import { DISPLAY_SAFE, displayText, SHA256_DIGEST } from './display-text';

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

// Every text is display-safe: records are shown in terminals and pages.
const id = displayText(DECISION_RECORD_LIMITS.maxText).min(1);

/** One reason: a determining policy (`<file>:<line>`) and its first comment line, or `null` and "no policy permits". */
export const decisionReasonSchema = z.strictObject({
  policy: id.nullable(),
  comment: displayText(DECISION_RECORD_LIMITS.maxReasonComment),
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
  app: displayText(64).min(1),
  principal: z.strictObject({ id, email: displayText(DECISION_RECORD_LIMITS.maxText).optional() }),
  action: id,
  resource: z.strictObject({ type: id, id }),
  decision: z.enum(['allow', 'deny']),
  reasons: z.array(decisionReasonSchema).max(DECISION_RECORD_LIMITS.maxReasons),
  policy_digest: z.string().regex(SHA256_DIGEST),
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

// The schema's rules by hand, for the records an edge builds itself: it checks each before it
// ships, and zod's parse cost ~4 µs a record where this costs a fraction of one (npm run
// bench:decisions, "Shipping a record"). The schema stays the record's schema of record: the
// relay parses every frame with it, and test/relay-protocol/fits-decision-record.test.ts holds
// the two to the same answer on generated records.

type Fields = Record<string, unknown>;

/** A plain object with exactly `count` enumerable keys (an own `__proto__` counts too). */
function hasKeys(value: unknown, count: number): value is Fields {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  let keys = 0;
  for (const _ in value) keys += 1;
  return keys === count;
}

const isText = (value: unknown, min: number, max: number): boolean =>
  typeof value === 'string' && value.length >= min && value.length <= max && DISPLAY_SAFE.test(value);
const isId = (value: unknown): boolean => isText(value, 1, DECISION_RECORD_LIMITS.maxText);
const isCount = (value: unknown): boolean => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function isReason(reason: unknown): boolean {
  return hasKeys(reason, 2) && (reason.policy === null || isId(reason.policy)) && isText(reason.comment, 0, DECISION_RECORD_LIMITS.maxReasonComment);
}

function isPrincipal(principal: unknown): boolean {
  if (hasKeys(principal, 1)) return isId(principal.id);
  return (
    hasKeys(principal, 2) &&
    'email' in principal &&
    isId(principal.id) &&
    (principal.email === undefined || isText(principal.email, 0, DECISION_RECORD_LIMITS.maxText))
  );
}

function areReasons(reasons: unknown): boolean {
  if (!Array.isArray(reasons) || reasons.length > DECISION_RECORD_LIMITS.maxReasons) return false;
  for (let i = 0; i < reasons.length; i++) if (!isReason(reasons[i])) return false;
  return true;
}

/** True when {@link decisionRecordSchema} accepts `record`. */
export function fitsDecisionRecord(record: DecisionRecord): boolean {
  const value: unknown = record;
  if (!hasKeys(value, 11)) return false;
  const { resource, latency_us: latency } = value;
  return (
    isCount(value.time) &&
    isId(value.request_id) &&
    isText(value.app, 1, 64) &&
    isPrincipal(value.principal) &&
    isId(value.action) &&
    hasKeys(resource, 2) &&
    isId(resource.type) &&
    isId(resource.id) &&
    (value.decision === 'allow' || value.decision === 'deny') &&
    areReasons(value.reasons) &&
    typeof value.policy_digest === 'string' &&
    SHA256_DIGEST.test(value.policy_digest) &&
    isCount(value.directory_revision) &&
    typeof latency === 'number' &&
    latency >= 0 &&
    latency <= 3_600_000_000
  );
}
