import { DECISION_SAMPLE_LIMITS, type EdgeMessage, type EdgeStatus, type SampledDecision } from '../relay-protocol';
import { createPendingCommands } from './pending-commands';
import { edgeError } from './relay-errors';

/** An edge's answer to `sample_request`: its recorded decisions and its status when it sent them. */
export interface DecisionSampleReply {
  readonly status: EdgeStatus;
  readonly entries: readonly SampledDecision[];
}

/** Samples asked of one edge at once; more get 429 like commands. */
export const MAX_PENDING_SAMPLES = 4;

/** Decision samples asked of one edge, assembled from their `sample_chunk` frames. */
export interface PendingSamples {
  /** Reserves a request id and a promise that settles on the whole sample, an error or the timeout. */
  add(): { requestId: string; result: Promise<DecisionSampleReply> };
  /** Takes one chunk; false when no sample with its id is awaited (finished, timed out, never asked). */
  receive(chunk: Extract<EdgeMessage, { type: 'sample_chunk' }>): boolean;
  reject(requestId: string, err: Error): boolean;
  rejectAll(err: Error): void;
}

/**
 * Bounded in both directions: at most {@link MAX_PENDING_SAMPLES} waiting, and a sample of
 * more than `DECISION_SAMPLE_LIMITS.maxEntries` entries or `maxChunks` frames is refused as
 * an edge failure (502), so an edge cannot make the relay hold more than that.
 */
export function createPendingSamples(options: { timeoutMs: number }): PendingSamples {
  const pending = createPendingCommands<DecisionSampleReply>({ timeoutMs: options.timeoutMs, max: MAX_PENDING_SAMPLES });
  const partial = new Map<string, { entries: SampledDecision[]; chunks: number }>();

  return {
    add() {
      const added = pending.add();
      partial.set(added.requestId, { entries: [], chunks: 0 });
      const forget = () => partial.delete(added.requestId);
      added.result.then(forget, forget);
      return added;
    },
    receive(chunk) {
      const id = chunk.request_id;
      const sample = partial.get(id);
      if (sample === undefined) return false;
      sample.chunks += 1;
      sample.entries.push(...chunk.entries);
      const { maxEntries, maxChunks } = DECISION_SAMPLE_LIMITS;
      if (sample.entries.length > maxEntries || sample.chunks > maxChunks) {
        partial.delete(id);
        pending.reject(id, edgeError(`the decision sample exceeds ${maxEntries} entries or ${maxChunks} frames`));
      } else if (chunk.done) {
        partial.delete(id);
        pending.resolve(id, { status: chunk.status, entries: sample.entries });
      }
      return true;
    },
    reject: (requestId, err) => pending.reject(requestId, err),
    rejectAll: (err) => pending.rejectAll(err),
  };
}
