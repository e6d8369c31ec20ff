import { httpError, isCodeAt, type HttpError } from '../http';
import { EDGE_FAILURE_CODES } from '../relay-protocol';

// The exec endpoint's error answers (docs/reference/api.md, "Relay management API"), built in one
// place so the relay, the router and the tests agree on every status, code and message.

/** 404: unknown to the caller's tenant — another tenant's instance gets the very same answer. */
export function instanceNotFound(): HttpError {
  return httpError('instance_not_found');
}

/** 409: registered, but no live connection right now. */
export function instanceNotConnected(): HttpError {
  return httpError('instance_not_connected');
}

/** 409: the connection closed while a command was waiting for its confirmation. */
export function instanceDisconnected(): HttpError {
  return httpError('instance_disconnected');
}

/**
 * 502: the edge ran the command and reported a failure; its message is passed on, and its
 * code too when it is one of {@link EDGE_FAILURE_CODES} (`edge_error` otherwise), so a
 * caller can tell a refused image from a failed sync without parsing the message.
 */
export function edgeError(message: string, code?: string): HttpError {
  return httpError(code !== undefined && isCodeAt(code, 502) && EDGE_FAILURE_CODES.has(code) ? code : 'edge_error', message, { status: 502 });
}

/** 504: no confirmation within the exec timeout. */
export function edgeTimeout(timeoutMs: number): HttpError {
  return httpError('edge_timeout', `the edge did not confirm the command within ${timeoutMs} ms`);
}

/** 429: too many commands already waiting on one edge. */
export function tooManyPending(): HttpError {
  return httpError('too_many_pending');
}

/** 503: the relay is shutting down. */
export function relayClosing(): HttpError {
  return httpError('relay_closing');
}
