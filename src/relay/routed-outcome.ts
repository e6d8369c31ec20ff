import { z } from 'zod';
import { httpError } from '../http';
import { tryResultFrameSchema, type TryDecisionResult } from '../relay-protocol';
import type { SendOutcome } from './send-to-edges';

const outcomeSchema = z.strictObject({
  confirmed: z.int().min(0),
  failed: z.array(z.strictObject({ id: z.string().min(1).max(256), code: z.string().min(1).max(64) })),
});

/**
 * Another node's answer to a routed broadcast of `asked`, checked like any bus message:
 * only ids that were asked about count, and no more than were asked. An answer that is not
 * an outcome fails every asked id with `server_error` rather than being trusted.
 */
export function parseRoutedOutcome(answer: unknown, asked: readonly string[]): SendOutcome {
  const parsed = outcomeSchema.safeParse(answer);
  const askedIds = new Set(asked);
  if (!parsed.success || parsed.data.confirmed + parsed.data.failed.length !== asked.length || !parsed.data.failed.every((f) => askedIds.has(f.id))) {
    return { confirmed: 0, failed: asked.map((id) => ({ id, code: 'server_error' })) };
  }
  return parsed.data;
}

const tryResultSchema = tryResultFrameSchema.omit({ type: true, request_id: true }).strict();

/**
 * Another node's answer to a routed try ("Try a decision"), checked as the owner checked the
 * edge's `try_result`: anything else is our own failure, a 500, never shown to the member.
 */
export function parseRoutedTryResult(answer: unknown): TryDecisionResult {
  const parsed = tryResultSchema.safeParse(answer);
  if (!parsed.success) throw httpError('server_error', undefined, { detail: 'another node answered a try with something else than a try result' });
  return parsed.data;
}
