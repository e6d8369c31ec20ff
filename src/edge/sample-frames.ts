import { DECISION_SAMPLE_LIMITS, MAX_FRAME_BYTES, type EdgeMessage, type EdgeStatus, type SampledDecision } from '../relay-protocol';

/** Room left in every frame for its envelope (type, request id, status, `done`). */
const ENVELOPE_BYTES = 1024;

/**
 * Splits a decision sample into `sample_chunk` frames of at most the relay's frame size,
 * in order, the last one `done`. At most {@link DECISION_SAMPLE_LIMITS.maxChunks} frames:
 * entries that would need more are left out (the sample lists the newest first, so the
 * oldest go). An empty sample is one empty `done` frame.
 */
export function sampleFrames(requestId: string, entries: readonly SampledDecision[], status: EdgeStatus): Extract<EdgeMessage, { type: 'sample_chunk' }>[] {
  const budget = MAX_FRAME_BYTES - ENVELOPE_BYTES;
  const chunks: SampledDecision[][] = [[]];
  let bytes = 0;
  for (const entry of entries) {
    const size = Buffer.byteLength(JSON.stringify(entry)) + 1;
    if (bytes + size > budget && chunks[chunks.length - 1]!.length > 0) {
      if (chunks.length === DECISION_SAMPLE_LIMITS.maxChunks) break;
      chunks.push([]);
      bytes = 0;
    }
    chunks[chunks.length - 1]!.push(entry);
    bytes += size;
  }
  return chunks.map((chunk, i) => ({ type: 'sample_chunk', request_id: requestId, entries: chunk, done: i === chunks.length - 1, status }));
}
