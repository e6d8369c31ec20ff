import { edgeMessageSchema, parseFrame, type EdgeMessage } from '../relay-protocol';

/**
 * Checks one frame from an edge; `undefined` when it is binary, not JSON or not a known
 * message. Never throws: a validator fault counts as a bad frame, it never crashes the relay.
 */
export function parseEdgeFrame(data: unknown, isBinary: boolean): EdgeMessage | undefined {
  if (isBinary) return undefined;
  try {
    return parseFrame(edgeMessageSchema, data);
  } catch {
    return undefined;
  }
}
