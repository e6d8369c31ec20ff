import { edgeMessageSchema, parseFrame, quickCommandResult, type EdgeMessage } from '../relay-protocol';

/**
 * Checks one frame from an edge; `undefined` when it is binary, not JSON or not a known
 * message. Never throws: a validator fault counts as a bad frame, it never crashes the relay.
 * A plain successful `command_result`, the frame every exec waits for, is checked by hand
 * first (zod was most of the relay's own cost of an exec: docs/benchmarks-history.md, "Relay at scale").
 */
export function parseEdgeFrame(data: unknown, isBinary: boolean): EdgeMessage | undefined {
  if (isBinary) return undefined;
  try {
    return parseFrame(edgeMessageSchema, data, quickCommandResult);
  } catch {
    return undefined;
  }
}
