import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { createRateLimitedLog, thrownName, type Logger } from '../observability';
import { HttpError, OAuthError } from './http-error';
import { isMalformedUrl, MALFORMED_URL_MESSAGE } from './malformed-url';
import './express-request';

/** Which body shape an app uses for errors it did not raise itself. */
export type ErrorShape = 'oauth' | 'api';

/** Errors raised by body-parser (express.json), identified by their `type`, never their text. */
interface BodyParserError {
  type: string;
  status?: number;
}

function isBodyParserError(err: unknown): err is BodyParserError {
  return typeof err === 'object' && err !== null && typeof (err as BodyParserError).type === 'string';
}

/** An error in the app's body shape: {@link OAuthError} at the IdP, {@link HttpError} elsewhere. */
export function errorInShape(shape: ErrorShape, status: number, code: string, message: string, headers: Record<string, string> = {}): HttpError {
  return shape === 'oauth' ? new OAuthError(status, code, message, headers) : new HttpError(status, code, message, headers);
}

/**
 * Writes a known error as its response: its status, its headers (a challenge, `Retry-After`)
 * and its JSON body. The error middleware answers every known error with it, and so does a
 * step that answers an expected refusal itself rather than throwing it (a policy's 403,
 * src/middleware): one way errors become responses (docs/conventions.md §3), whichever path
 * reached it.
 */
export function sendError(res: Response, error: HttpError): void {
  res.status(error.status).set(error.headers).json(error.toBody());
}

/** Maps body-parser's failures to client errors; anything else is ours (undefined). */
function fromBodyParser(err: unknown, shape: ErrorShape): HttpError | undefined {
  if (!isBodyParserError(err)) return undefined;
  const badRequest = shape === 'oauth' ? 'invalid_request' : 'bad_request';
  switch (err.type) {
    case 'entity.parse.failed':
      return errorInShape(shape, 400, badRequest, 'the request body is not valid JSON');
    case 'entity.too.large':
      // RFC 6749 §5.2 has no size error: an oversized token request is an invalid_request (400).
      return shape === 'oauth'
        ? errorInShape(shape, 400, 'invalid_request', 'the request body is too large')
        : errorInShape(shape, 413, 'payload_too_large', 'the request body is too large');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return errorInShape(shape, 415, shape === 'oauth' ? 'invalid_request' : 'unsupported_media_type', 'unsupported body encoding');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return errorInShape(shape, 400, badRequest, 'the request body could not be read');
    default:
      return undefined;
  }
}

/**
 * Turns one library's failures into responses where that library lives, so `src/http` needs to
 * know no storage engine (`src/sql` exports the storage one). `translate` answers an error it
 * recognises — by `code` or class, never by message text (docs/conventions.md §3) — in the
 * app's shape, and `undefined` for anything else. A translated error is our failure: it is
 * logged at error level, once per kind per minute, with the error's code only (its message
 * may hold what a log must not), under the message `` `${label} error` ``.
 */
export interface ErrorTranslator {
  /** What the log line says the failure was (`storage` logs `storage error`). */
  readonly label: string;
  /** The response for `err` in `shape`, or `undefined` when `err` is not this translator's. */
  translate(err: unknown, shape: ErrorShape): HttpError | undefined;
}

/** Options of {@link createErrorHandler}. */
export interface ErrorHandlerOptions {
  /** The log's clock, for tests. */
  readonly now?: () => number;
  /** Translators of library errors, asked in order before an error becomes a 500. */
  readonly translators?: readonly ErrorTranslator[];
}

/** The first translation of `err`, with the translator that made it. */
function translate(err: unknown, shape: ErrorShape, translators: readonly ErrorTranslator[]): { error: HttpError; label: string } | undefined {
  for (const translator of translators) {
    const error = translator.translate(err, shape);
    if (error) return { error, label: translator.label };
  }
  return undefined;
}

/** The code a translated error is logged by: its `code`, else the name of what was thrown. */
function errCodeOf(err: unknown): string {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : thrownName(err);
}

/**
 * The one place where errors become responses (docs/conventions.md §3). Known errors keep their
 * status, headers and body; a path that does not decode (refused by `createApp`, or a route
 * parameter the router could not decode) is a 400 in the app's shape, logged in one info line;
 * everything else is a generic 500 `server_error` whose detail goes only to the log, tagged
 * with the request id. Every 503 says when to retry (`HttpError` gives it `Retry-After`). An error
 * one of `options.translators` recognises (storage failures, from `src/sql`) gets its answer.
 *
 * Our own failures (5xx) are logged once per kind per minute (`src/observability`'s
 * rate-limited log), so a flood of one failure costs one line a minute, not one a request;
 * each request still has its `request` line. A kind is the code plus the name of what was
 * thrown: a typed error's `cause` (an unexpected exception it wraps, logged with its stack
 * at error level) or the error itself. `now` is that log's clock, for tests.
 */
export function createErrorHandler(logger: Logger, shape: ErrorShape, options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  const translators = [...(options.translators ?? [])];
  const failures = createRateLimitedLog(logger, options.now ? { now: options.now } : {});
  return function errorHandler(err, req, res, next) {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (isMalformedUrl(err)) {
      // A client's typo or a scanner's probe: one short line, never a stack.
      const refusal = errorInShape(shape, 400, shape === 'oauth' ? 'invalid_request' : 'bad_request', MALFORMED_URL_MESSAGE);
      logger.info({ req_id: req.id, code: refusal.code }, 'malformed URL refused');
      res.status(refusal.status).json(refusal.toBody());
      return;
    }
    const parsed = err instanceof HttpError ? undefined : fromBodyParser(err, shape);
    const translated = err instanceof HttpError || parsed ? undefined : translate(err, shape, translators);
    const known = err instanceof HttpError ? err : (parsed ?? translated?.error);
    if (known) {
      if (translated) {
        const errCode = errCodeOf(err);
        failures.write('error', `${known.code} ${errCode}`, { req_id: req.id, err_code: errCode }, `${translated.label} error`);
      } else if (known.status >= 500) {
        const fields = { req_id: req.id, code: known.code, detail: known.detail };
        const cause = known.cause;
        // A typed error wrapping an unexpected exception: the exception is the news, stack and all.
        if (cause !== undefined && !(cause instanceof HttpError)) failures.write('error', `${known.code} ${thrownName(cause)}`, { ...fields, err: cause }, known.message);
        else failures.write('warn', `${known.code} ${known.name}`, fields, known.message);
      } else if (known.detail !== undefined) logger.info({ req_id: req.id, code: known.code, detail: known.detail }, known.message);
      sendError(res, known);
      return;
    }
    failures.write('error', `server_error ${thrownName(err)}`, { req_id: req.id, err }, 'unhandled error');
    const body =
      shape === 'oauth'
        ? { error: 'server_error', error_description: 'internal error' }
        : { code: 'server_error', message: 'internal error' };
    res.status(500).json(body);
  };
}

/** Final route: unknown paths answer a JSON 404 instead of Express's HTML page. */
export function notFound(shape: ErrorShape): RequestHandler {
  return function notFoundHandler(req, _res, next) {
    const message = `no route for ${req.method} ${req.path}`;
    next(shape === 'oauth' ? new OAuthError(404, 'not_found', message) : new HttpError(404, 'not_found', message));
  };
}
