/**
 * Errors that carry their HTTP shape. Handlers throw them; the one final error
 * middleware of each app ({@link createErrorHandler}) turns them into responses.
 * `HttpError` and `OAuthError` are the middleware package's (packages/express-authz), so its
 * refusals and the platform's errors are one class family, answered by one error handler.
 * Every error here is built from a code of the one table ({@link ERROR_CODES}).
 */
import { HttpError, OAuthError } from '@outpost/express-authz';
import { ERROR_CODES, type CodeAt, type ErrorCode, type ErrorCodeEntry, type StatusOf } from './error-codes';

export { HttpError, OAuthError } from '@outpost/express-authz';

/** What a site may add to a code: another of its statuses, headers, and a log-only detail. */
export interface ErrorOptions<C extends ErrorCode> {
  readonly status?: StatusOf<C>;
  readonly headers?: Record<string, string>;
  readonly detail?: string;
}

/** The status, message and headers of `code`: the table's, unless the site gives its own. */
function answerOf<C extends ErrorCode>(code: C, message: string | undefined, options: ErrorOptions<C>): [number, C, string, Record<string, string>, string | undefined] {
  const entry: ErrorCodeEntry = ERROR_CODES[code];
  const ownRetry = Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'retry-after');
  const retry: Record<string, string> = entry.retryAfter !== undefined && !ownRetry ? { 'Retry-After': String(entry.retryAfter) } : {};
  return [options.status ?? entry.status, code, message ?? entry.message, { ...retry, ...options.headers }, options.detail];
}

/** The `{code, message}` error for `code`, with the table's status and message unless given. */
export function httpError<C extends ErrorCode>(code: C, message?: string, options: ErrorOptions<C> = {}): HttpError {
  return new HttpError(...answerOf(code, message, options));
}

/** The same in the OAuth shape `{error, error_description}` (the IdP). */
export function oauthError<C extends ErrorCode>(code: C, message?: string, options: ErrorOptions<C> = {}): OAuthError {
  return new OAuthError(...answerOf(code, message, options));
}

/** The status {@link ERROR_CODES} gives `code` first. */
export function statusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}

/** 400 with the `{code, message}` body, for malformed requests to Outpost's own APIs. */
export class BadRequestError extends HttpError {
  constructor(message: string, code: CodeAt<400> = 'bad_request') {
    super(400, code, message);
  }
}

/** 404 with the `{code, message}` body. */
export class NotFoundError extends HttpError {
  constructor(message: string, code: CodeAt<404> = 'not_found') {
    super(404, code, message);
  }
}

/** 409 with the `{code, message}` body. */
export class ConflictError extends HttpError {
  constructor(message: string, code: CodeAt<409> = 'conflict') {
    super(409, code, message);
  }
}

/** 503: a dependency we need (JWKS, authorizer) is unavailable. Fail closed. */
export class ServiceUnavailableError extends HttpError {
  constructor(message: string, code: CodeAt<503>, detail?: string) {
    super(503, code, message, {}, detail);
  }
}
