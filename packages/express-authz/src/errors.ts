/**
 * The package's answers: errors that carry their status, headers and JSON body, written by the
 * middleware itself (an app without an error handler never sends Express's HTML page, a stack
 * or a path) or by `authErrorHandler`. `message` is public; `detail` is for the log only.
 */
import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';

/** One code: its status (then any other a site answers it with), its default message and `Retry-After`. */
export interface ErrorCodeEntry {
  readonly status: number;
  readonly also?: readonly number[];
  readonly message: string;
  readonly retryAfter?: number;
}

/** The codes this package answers with; an application's own table includes this one. */
export const AUTHZ_ERROR_CODES = {
  unauthorized: { status: 401, message: 'an access token is required: send Authorization: Bearer <access_token>' },
  invalid_request: { status: 400, message: 'the request is malformed (RFC 6750 §3.1, RFC 6749 §5.2)' },
  invalid_token: { status: 401, message: 'the access token is expired, malformed, badly signed or meant for someone else' },
  insufficient_scope: { status: 403, message: 'the access token lacks the scope the route needs' },
  temporarily_unavailable: { status: 503, message: 'the signing keys of the identity provider are unavailable; try again later' },
  forbidden: { status: 403, message: 'Forbidden by policy' },
  authorizer_unavailable: { status: 503, message: 'the authorizer is unavailable; try again shortly' },
  invalid_property: { status: 400, message: 'a resource property is not of the type the policy schema declares' },
} as const satisfies Readonly<Record<string, ErrorCodeEntry>>;

const hasRetryAfter = (headers: Readonly<Record<string, string>>) => Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after');

/** An error that is its own answer: status, headers (`Retry-After` on every 503) and the body `{code, message}`. */
export class HttpError extends Error {
  readonly headers: Readonly<Record<string, string>>;
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    headers: Record<string, string> = {},
    readonly detail?: string,
  ) {
    super(message);
    this.name = new.target.name;
    // Every 503 says when to retry (RFC 9110 §10.2.3): 1 s unless the site says otherwise.
    this.headers = status === 503 && !hasRetryAfter(headers) ? { ...headers, 'Retry-After': '1' } : headers;
  }

  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message };
  }
}

/** The OAuth 2.0 shape `{error, error_description}` (RFC 6749 §5.2, RFC 6750 §3). */
export class OAuthError extends HttpError {
  override toBody(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }
}

/**
 * An RFC 9110 §5.6.4 quoted-string: `\` and `"` escaped, anything outside printable ASCII (CR,
 * LF, non-ASCII) replaced, so a description can never split or inject a header.
 */
export function quoteHeaderValue(value: string): string {
  return `"${value.replace(/[^\x20-\x7e]/g, '?').replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/** The RFC 6750 §3 challenge, parameters in the order of its examples; absent ones left out. */
export function buildBearerChallenge(challenge: { realm: string; error?: string; error_description?: string; scope?: string }): string {
  const params = (['realm', 'error', 'error_description', 'scope'] as const).filter((name) => challenge[name] !== undefined);
  return `Bearer ${params.map((name) => `${name}=${quoteHeaderValue(challenge[name]!)}`).join(', ')}`;
}

/** The realm challenges name when a caller names none. */
export const DEFAULT_REALM = 'outpost';
type BearerCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope';
const challenged = (code: BearerCode, message: string, realm: string, scope?: string) => {
  const error = { realm, error: code, error_description: message, ...(scope === undefined ? {} : { scope }) };
  return [AUTHZ_ERROR_CODES[code].status, code, message, { 'WWW-Authenticate': buildBearerChallenge(error) }] as const;
};

/** 401 with no bearer credentials at all: the challenge names only the realm (RFC 6750 §3.1). */
export class UnauthorizedError extends OAuthError {
  constructor(message: string = AUTHZ_ERROR_CODES.unauthorized.message, realm = DEFAULT_REALM) {
    super(AUTHZ_ERROR_CODES.unauthorized.status, 'unauthorized', message, { 'WWW-Authenticate': buildBearerChallenge({ realm }) });
  }
}

/** 400: a malformed Authorization header, or a token sent another way or more than one way. */
export class InvalidRequestError extends OAuthError {
  constructor(message: string, realm = DEFAULT_REALM) {
    super(...challenged('invalid_request', message, realm));
  }
}

/** 401: expired, malformed, badly signed, of the wrong type or for someone else; never echoes the token. */
export class InvalidTokenError extends OAuthError {
  constructor(message: string, realm = DEFAULT_REALM) {
    super(...challenged('invalid_token', message, realm));
  }
}

/** 403: a good token without the scope the route needs; the challenge names it. */
export class InsufficientScopeError extends OAuthError {
  constructor(scope: string, realm = DEFAULT_REALM) {
    super(...challenged('insufficient_scope', `the access token lacks the ${scope} scope`, realm, scope));
  }
}

/** 503: the keys to check a token could not be fetched. Our fault, so never a 401 — and never an allow. */
export class TemporarilyUnavailableError extends OAuthError {
  constructor(message: string = AUTHZ_ERROR_CODES.temporarily_unavailable.message) {
    super(AUTHZ_ERROR_CODES.temporarily_unavailable.status, 'temporarily_unavailable', message, { 'Retry-After': '5' });
  }
}

/** 503: the authorizer could not decide. The client reads a generic message; `detail` says why, for the log. */
export class AuthorizerUnavailableError extends HttpError {
  constructor(detail: string) {
    super(AUTHZ_ERROR_CODES.authorizer_unavailable.status, 'authorizer_unavailable', AUTHZ_ERROR_CODES.authorizer_unavailable.message, {}, detail);
  }
}

/** Writes an error as its answer. */
export function sendError(res: Response, error: HttpError): void {
  res.status(error.status).set(error.headers).json(error.toBody());
}

/** How the middleware answers a refusal: itself (default, so never Express's HTML page), or through `next(err)`. */
export interface AnswerOptions {
  /** `true`: refusals go to `next(err)`, for the app's own error middleware or `authErrorHandler()`. */
  readonly forwardErrors?: boolean;
}

/** The refusal writer the options ask for. */
export function answerOrForward(options: AnswerOptions): (error: HttpError, res: Response, next: NextFunction) => void {
  return options.forwardErrors === true ? (error, _res, next) => next(error) : (error, res) => sendError(res, error);
}

/** Error middleware for an app that forwards: answers this package's errors, passes the rest on. */
export function authErrorHandler(): ErrorRequestHandler {
  return function authErrorMiddleware(err, _req: Request, res, next) {
    if (err instanceof HttpError && !res.headersSent) sendError(res, err);
    else next(err);
  };
}
