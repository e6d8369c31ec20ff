import express, { type RequestHandler } from 'express';
import { BadRequestError } from './http-error';

/**
 * Reads a body with `parser`, after refusing a request whose `Content-Length` already says it
 * is over `limitBytes` — before a byte of the body is read, closing the connection once the
 * answer is out. body-parser finds the same, but then reads (and drops) the whole declared
 * body before it answers: one request claiming 100 MB held a connection until the server's
 * request timeout (30 s). The error has body-parser's own `type`, so the error handler answers
 * it exactly as a body found too large while reading (413, or 400 `invalid_request` at the IdP).
 */
function bounded(limitBytes: number, parser: RequestHandler): RequestHandler {
  return function readBody(req, res, next) {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (!(declared > limitBytes)) {
      parser(req, res, next);
      return;
    }
    res.set('Connection', 'close');
    res.once('finish', () => req.socket.destroySoon());
    next(Object.assign(new Error('request entity too large'), { type: 'entity.too.large', status: 413, expose: true }));
  };
}

/**
 * A JSON body of at most `limitBytes`, as `express.json` reads it, with two bounds of ours:
 * an oversized `Content-Length` is refused before reading, and compressed bodies
 * (`Content-Encoding: gzip`, `deflate`, `br`) are refused with 415 (RFC 9110 §15.5.16) — no
 * client of Outpost compresses what it sends, and inflating is one more way for junk to cost
 * CPU or to fail in a way nobody mapped (it answered 500).
 */
export function jsonBody(limitBytes: number): RequestHandler {
  return bounded(limitBytes, express.json({ limit: limitBytes, inflate: false }));
}

/** An `application/x-www-form-urlencoded` body of at most `limitBytes`, bounded as {@link jsonBody}. */
export function formBody(limitBytes: number): RequestHandler {
  return bounded(limitBytes, express.urlencoded({ extended: false, limit: limitBytes, inflate: false }));
}

/**
 * For a route that documents no body: a request that carries one (any `Content-Length` above 0,
 * or a chunked body) is refused with 400 before the route acts, whatever its content type, so a
 * caller who thinks a body steered the action learns that it did not. Nothing is read.
 */
export function noBody(): RequestHandler {
  return function refuseBody(req, _res, next) {
    const length = req.headers['content-length'];
    const carries = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    next(carries ? new BadRequestError('this route takes no body') : undefined);
  };
}
