import type { RequestHandler } from 'express';
import { BadRequestError } from './http-error';

/** Methods that only read: their query parameters are filters each route parses for itself. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses a query string on a write (`POST`, `PUT`, `PATCH`, `DELETE`): no write route of an
 * API mounted behind it takes one, so `DELETE …/users/u1?force=1` would otherwise do the plain
 * delete while the caller believes it asked for something else. 400 before any credential or
 * body is read; the message names the parameters (their names only, never their values).
 */
export function refuseWriteQuery(): RequestHandler {
  return function refuseQueryOnWrite(req, _res, next) {
    const at = req.url.indexOf('?');
    if (READS.has(req.method) || at === -1 || at === req.url.length - 1) {
      next();
      return;
    }
    const names = [...new Set(req.url.slice(at + 1).split('&').map((pair) => pair.split('=')[0]!))].filter(Boolean);
    const shown = names.map((n) => (/^[\w.-]{1,40}$/.test(n) ? n : '…')).join(', ');
    next(new BadRequestError(`a ${req.method} takes no query parameters (got: ${shown || 'an empty one'})`, 'unknown_query_parameter'));
  };
}
