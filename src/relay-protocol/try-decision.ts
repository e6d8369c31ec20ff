import { z } from 'zod';
import { DECISION_RECORD_LIMITS, decisionReasonSchema } from './decision-record';
import { DISPLAY_SAFE } from './display-text';

// No control or format characters: a tried request is shown back in a page.
const text = z.string().min(1).max(DECISION_RECORD_LIMITS.maxText).regex(DISPLAY_SAFE, 'must not contain control or format characters');
const requestId = z.string().min(1).max(64);

/**
 * A question the console asks one edge over the relay ("Try a decision", docs/reference/api.md,
 * "Decision records"): may `principal` (a user id, an e-mail or another identity) do `action` on
 * `resource`? The edge answers from its current image and directory, and records nothing.
 */
export const tryDecisionRequestSchema = z.strictObject({
  principal: text,
  action: text,
  resource: z.strictObject({ type: text, id: text }),
});

/** The relay's frame: decide this, answer with `try_result` (or a failed `command_result`). */
export const tryDecisionFrameSchema = z.object({ type: z.literal('try_decision'), request_id: requestId, request: tryDecisionRequestSchema });

/** The edge's answer: the decision, why, and the state it was made from. */
export const tryResultFrameSchema = z.object({
  type: z.literal('try_result'),
  request_id: requestId,
  principal: z.strictObject({ id: text, email: text.optional() }),
  decision: z.enum(['allow', 'deny']),
  reasons: z.array(decisionReasonSchema).max(DECISION_RECORD_LIMITS.maxReasons),
  policy_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/),
  directory_revision: z.number().int().min(0),
});

export type TryDecisionRequest = z.infer<typeof tryDecisionRequestSchema>;
/** What a tried decision answers, without the frame's `type` and `request_id`. */
export type TryDecisionResult = Omit<z.infer<typeof tryResultFrameSchema>, 'type' | 'request_id'>;
