import { HttpError, httpError } from '../http';
import { edgeError, instanceDisconnected, instanceNotConnected, instanceNotFound, relayClosing } from '../relay';
import { routingUnavailable } from './routing-errors';

/** An HttpError as one node sends it to another in a bus reply: its public parts only. */
export interface WireError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
}

/**
 * The errors an owning node may answer a routed exec with, rebuilt by the asking node from
 * the same factories the relay uses, so a caller gets the very status, code, message and
 * headers (`Retry-After`) whichever node its request landed on.
 */
const REBUILD: Readonly<Record<string, (wire: WireError) => HttpError>> = {
  instance_not_found: () => instanceNotFound(),
  instance_not_connected: () => instanceNotConnected(),
  instance_disconnected: () => instanceDisconnected(),
  // Both 429s (one edge's pending cap, a node's in-flight cap) carry the table's Retry-After.
  too_many_pending: (wire) => httpError('too_many_pending', wire.message),
  relay_closing: () => relayClosing(),
  routing_unavailable: () => routingUnavailable('the owning node could not reach redis'),
  edge_timeout: (wire) => httpError('edge_timeout', wire.message),
};

/** What a request handler's failure becomes on the wire; anything not an HttpError is a plain 500. */
export function toWireError(err: unknown): WireError {
  if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message };
  return { status: 500, code: 'server_error', message: 'internal error' };
}

/**
 * The HttpError a wire error stands for. 502s go through `edgeError`, which keeps the
 * edge's code only when it is one of the allow-listed failure codes; an unknown code is
 * never passed on as if it were part of the contract, but answered as a 500.
 */
export function fromWireError(wire: WireError): HttpError {
  const rebuild = Object.hasOwn(REBUILD, wire.code) ? REBUILD[wire.code] : undefined;
  if (rebuild) return rebuild(wire);
  if (wire.status === 502) return edgeError(wire.message, wire.code);
  return httpError('server_error', undefined, { detail: `another node answered ${wire.status} ${wire.code}` });
}
