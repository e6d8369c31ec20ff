/**
 * Errors that carry their HTTP answer: status, extra headers and a JSON body. The middleware
 * of this package throws (or answers) them; `sendError` and `authErrorHandler` write them.
 *
 * `message` is public: it goes to the client and must be safe for anyone to read.
 * `detail` is for the log only (an errno, a peer's status) and is never sent.
 */

/** How long a 503 asks the caller to wait when it names no wait of its own. */
const DEFAULT_RETRY_AFTER_SECONDS = '1';

const namesRetryAfter = (headers: Readonly<Record<string, string>>): boolean => Object.keys(headers).some((name) => name.toLowerCase() === 'retry-after');

export class HttpError extends Error {
  /** Extra response headers, e.g. `WWW-Authenticate` or `Retry-After` (every 503 has one: 1 s unless given). */
  readonly headers: Readonly<Record<string, string>>;
  /** Log-only detail; never part of a response. */
  readonly detail: string | undefined;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    headers: Record<string, string> = {},
    detail?: string,
  ) {
    super(message);
    this.name = new.target.name;
    // Every 503 says when to retry (RFC 9110 §10.2.3), wherever it is answered.
    this.headers = status === 503 && !namesRetryAfter(headers) ? { ...headers, 'Retry-After': DEFAULT_RETRY_AFTER_SECONDS } : headers;
    this.detail = detail;
  }

  /** The JSON body: `{code, message}`. */
  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message };
  }
}

/** An error in the OAuth 2.0 shape `{error, error_description}` (RFC 6749 §5.2, RFC 6750 §3). */
export class OAuthError extends HttpError {
  override toBody(): Record<string, unknown> {
    return { error: this.code, error_description: this.message };
  }
}
