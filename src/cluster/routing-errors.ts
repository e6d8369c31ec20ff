import { HttpError, httpError } from '../http';

/** The code of {@link routingUnavailable}, for callers that tell it from other 503s. */
export const ROUTING_UNAVAILABLE = 'routing_unavailable' as const;

/**
 * 503: the nodes cannot reach each other through Redis right now (it is down, restarting or
 * too slow). Fail closed and fast; the client retries after a second. `detail` (the Redis
 * client's own message) is for the log only (docs/conventions.md §3).
 */
export function routingUnavailable(detail?: string): HttpError {
  return httpError(ROUTING_UNAVAILABLE, undefined, { detail });
}

/** True for the error {@link routingUnavailable} builds. */
export function isRoutingUnavailable(err: unknown): boolean {
  return err instanceof HttpError && err.code === ROUTING_UNAVAILABLE;
}

/** 429: this node already waits on as many routed requests as it may (`MAX_BUS_IN_FLIGHT`). */
export function tooManyInFlight(): HttpError {
  return httpError('too_many_pending', 'too many commands are waiting on other control-plane nodes');
}
