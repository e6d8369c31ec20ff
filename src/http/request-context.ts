import type { Request, Response } from 'express';
import type { Logger } from '../observability';
import { requestIdFor } from './request-id';
import './express-request';

/** Starts one request: its id, and its log line when the response finishes. */
export type StartRequest = (req: Request, res: Response) => void;

/**
 * Gives each request an id (echoed as `X-Request-Id`) and writes one log line when the
 * response finishes: request id, method, path, status, duration — these five fields and no
 * others (test/http/request-context.test.ts). Headers, bodies and the query string (where a
 * token could be sent, RFC 6750 §2.3) are never logged, so the line cannot carry a
 * credential.
 */
export function requestContext(logger: Logger): StartRequest {
  return function startRequest(req, res) {
    const started = process.hrtime.bigint();
    req.id = requestIdFor(req);
    res.setHeader('X-Request-Id', req.id);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info({ req_id: req.id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
  };
}
