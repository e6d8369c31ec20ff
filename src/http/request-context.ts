import type { Request, Response } from 'express';
import { unredactedLogger, type Logger } from '../observability';
import { requestIdFor } from './request-id';
import './express-request';

/** Starts one request: its id, and its log line when the response finishes. */
export type StartRequest = (req: Request, res: Response) => void;

/**
 * Gives each request an id (echoed as `X-Request-Id`) and writes one log line when the
 * response finishes: request id, method, path, status, duration — these five fields and no
 * others (test/http/request-context.test.ts). Headers, bodies and the query string (where a
 * token could be sent, RFC 6750 §2.3) are never logged, so the line cannot carry a
 * credential, and it is written by a child of `logger` without the redaction that guards
 * free-form lines (src/observability): that redaction only removes keys such as `token` or
 * `*.password`, which this fixed line never has, and its wildcard costs every request a walk
 * of the line (`npm run bench:apps`). Every other line of the app stays redacted.
 */
export function requestContext(logger: Logger): StartRequest {
  const logRequest = requestLog(logger);
  return function startRequest(req, res) {
    const started = process.hrtime.bigint();
    req.id = requestIdFor(req);
    res.setHeader('X-Request-Id', req.id);
    res.on('finish', () => logRequest(req.id, req.method, req.path, res.statusCode, started));
  };
}

/** Writes a request's one line; `started` is `process.hrtime.bigint()` when it arrived. */
export type RequestLog = (id: string, method: string, path: string, status: number, started: bigint) => void;

/**
 * The request line {@link requestContext} writes, for a route served on bare `node:http`
 * (src/fast-path/bare-json-routes.ts, the opt-in bare path): the same five fields, through the same unredacted child.
 */
export function requestLog(logger: Logger): RequestLog {
  const log = unredactedLogger(logger);
  return function logRequest(id, method, path, status, started) {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    log.info({ req_id: id, method, path, status, ms: Math.round(ms * 10) / 10 }, 'request');
  };
}
