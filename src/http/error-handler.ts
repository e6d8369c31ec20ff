import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { createRateLimitedLog, thrownName, type Logger } from '../observability';
import type { ErrorCode } from './error-codes';
import { HttpError, httpError, oauthError, type ErrorOptions } from './http-error';
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
export function errorInShape<C extends ErrorCode>(shape: ErrorShape, code: C, message?: string, options: ErrorOptions<C> = {}): HttpError {
  return shape === 'oauth' ? oauthError(code, message, options) : httpError(code, message, options);
}

/**
 * Writes a known error as its response: its status, its headers (a challenge, `Retry-After`)
 * and its JSON body. The error middleware answers every error the same way, and so does a
 * step that answers an expected refusal itself rather than throwing it (a policy's 403,
 * packages/express-authz): one way errors become responses (docs/conventions.md §3), whichever path
 * reached it.
 */
export function sendError(res: Response, error: HttpError): void {
  sendAnswer(res, { status: error.status, headers: error.headers, body: error.toBody() });
}

function sendAnswer(res: Response, answer: ErrorAnswer): void {
  res.status(answer.status).set(answer.headers).json(answer.body);
}

/** Maps body-parser's failures to client errors; anything else is ours (undefined). */
function fromBodyParser(err: unknown, shape: ErrorShape): HttpError | undefined {
  if (!isBodyParserError(err)) return undefined;
  const badRequest = shape === 'oauth' ? 'invalid_request' : 'bad_request';
  const tooLarge = 'the request body is too large';
  switch (err.type) {
    case 'entity.parse.failed':
      return errorInShape(shape, badRequest, 'the request body is not valid JSON');
    case 'entity.too.large':
      // RFC 6749 §5.2 has no size error: an oversized token request is an invalid_request (400).
      return shape === 'oauth'
        ? errorInShape(shape, 'invalid_request', tooLarge)
        : errorInShape(shape, 'payload_too_large', tooLarge);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return shape === 'oauth' ? errorInShape(shape, 'invalid_request', 'unsupported body encoding', { status: 415 }) : errorInShape(shape, 'unsupported_media_type');
    case 'request.aborted':
    case 'request.size.invalid':
    case 'stream.encoding.set':
      return errorInShape(shape, badRequest, 'the request body could not be read');
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

/** Options of {@link createErrorResponder} (and {@link createErrorHandler}). */
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

/** What an error answers: its status, its extra headers (a challenge, `Retry-After`) and its JSON body. */
export interface ErrorAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Record<string, unknown>;
}

/** Turns what a request threw into its answer, writing the log lines it calls for under the request's id. */
export type ErrorResponder = (err: unknown, requestId: string) => ErrorAnswer;

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
 *
 * Express apps use it through {@link errorMiddleware} (finishApp); a route served on bare `node:http`
 * (src/fast-path/bare-json-routes.ts, the opt-in bare path) calls it directly, so both answer and log a failure alike.
 */
export function createErrorResponder(logger: Logger, shape: ErrorShape, options: ErrorHandlerOptions = {}): ErrorResponder {
  const translators = [...(options.translators ?? [])];
  const failures = createRateLimitedLog(logger, options.now ? { now: options.now } : {});
  return function answerError(err, requestId) {
    if (isMalformedUrl(err)) {
      // A client's typo or a scanner's probe: one short line, never a stack.
      const refusal = errorInShape(shape, shape === 'oauth' ? 'invalid_request' : 'bad_request', MALFORMED_URL_MESSAGE);
      logger.info({ req_id: requestId, code: refusal.code }, 'malformed URL refused');
      return { status: refusal.status, headers: {}, body: refusal.toBody() };
    }
    const parsed = err instanceof HttpError ? undefined : fromBodyParser(err, shape);
    const translated = err instanceof HttpError || parsed ? undefined : translate(err, shape, translators);
    const known = err instanceof HttpError ? err : (parsed ?? translated?.error);
    if (known) {
      if (translated) {
        const errCode = errCodeOf(err);
        failures.write('error', `${known.code} ${errCode}`, { req_id: requestId, err_code: errCode }, `${translated.label} error`);
      } else if (known.status >= 500) {
        const fields = { req_id: requestId, code: known.code, detail: known.detail };
        const cause = known.cause;
        // A typed error wrapping an unexpected exception: the exception is the news, stack and all.
        if (cause !== undefined && !(cause instanceof HttpError)) failures.write('error', `${known.code} ${thrownName(cause)}`, { ...fields, err: cause }, known.message);
        else failures.write('warn', `${known.code} ${known.name}`, fields, known.message);
      } else if (known.detail !== undefined) logger.info({ req_id: requestId, code: known.code, detail: known.detail }, known.message);
      return { status: known.status, headers: known.headers, body: known.toBody() };
    }
    failures.write('error', `server_error ${thrownName(err)}`, { req_id: requestId, err }, 'unhandled error');
    const unhandled = errorInShape(shape, 'server_error');
    return { status: unhandled.status, headers: {}, body: unhandled.toBody() };
  };
}

/** The Express error middleware of every app: {@link createErrorResponder}'s answer, sent. */
export function createErrorHandler(logger: Logger, shape: ErrorShape, options: ErrorHandlerOptions = {}): ErrorRequestHandler {
  return errorMiddleware(createErrorResponder(logger, shape, options));
}

/** `answerError`'s answers as Express error middleware; an answer already begun is left to Express. */
export function errorMiddleware(answerError: ErrorResponder): ErrorRequestHandler {
  return function errorHandler(err, req, res, next) {
    if (res.headersSent) {
      next(err);
      return;
    }
    sendAnswer(res, answerError(err, req.id));
  };
}

/** Final route: unknown paths answer a JSON 404 instead of Express's HTML page. */
export function notFound(shape: ErrorShape): RequestHandler {
  return function notFoundHandler(req, _res, next) {
    const message = `no route for ${req.method} ${req.path}`;
    next(errorInShape(shape, 'not_found', message));
  };
}
