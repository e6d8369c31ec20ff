import type { RequestHandler } from 'express';
import type { Logger } from '../observability';
import { requestIdFor } from './request-id';
import './express-request';

/**
 * Gives each request an id (echoed as `X-Request-Id`) and writes one log line when the
 * response finishes: method, path, status, duration. Headers and bodies are never
 * logged, so credentials cannot end up in the log.
 */
export function requestContext(logger: Logger): RequestHandler {
  return function requestContextMiddleware(req, res, next) {
    const started = process.hrtime.bigint();
    req.id = requestIdFor(req);
    res.setHeader('X-Request-Id', req.id);
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { req_id: req.id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}
