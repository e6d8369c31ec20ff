import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The request id used in logs and echoed as `X-Request-Id`: the caller's own id when it
 * is short and harmless (so ids can be traced across services), otherwise a fresh UUID.
 */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
}
