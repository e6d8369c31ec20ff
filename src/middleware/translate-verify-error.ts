import { HttpError } from '../http';
import { InvalidRequestError, InvalidTokenError, UnauthorizedError } from '../oauth2-bearer';

/** The shape of express-jwt's `UnauthorizedError`: a `code` plus the jsonwebtoken error as `inner`. */
interface ExpressJwtError {
  name: 'UnauthorizedError';
  code: string;
  inner?: { name?: unknown };
}

function isExpressJwtError(err: unknown): err is ExpressJwtError {
  return (
    typeof err === 'object' &&
    err !== null &&
    (err as { name?: unknown }).name === 'UnauthorizedError' &&
    typeof (err as { code?: unknown }).code === 'string'
  );
}

/** jsonwebtoken's error classes, by name (RFC 7519 §4.1.4 exp, §4.1.5 nbf). */
function describeJwtFailure(inner: { name?: unknown } | undefined): string {
  switch (inner?.name) {
    case 'TokenExpiredError':
      return 'the token has expired';
    case 'NotBeforeError':
      return 'the token is not valid yet';
    default:
      return 'the token signature or claims are invalid';
  }
}

/**
 * Maps what express-jwt passes to `next(err)` onto our typed bearer errors, by error `code`
 * and class name, never by message text (CONVENTIONS §5). Our own errors (thrown by the key
 * lookup) pass through; anything unknown is returned unchanged and becomes a 500.
 */
export function translateVerifyError(err: unknown, realm: string): unknown {
  if (err instanceof HttpError || !isExpressJwtError(err)) return err;
  switch (err.code) {
    case 'credentials_required':
      return new UnauthorizedError(undefined, realm);
    case 'credentials_bad_scheme':
    case 'credentials_bad_format':
      return new InvalidRequestError('the Authorization header must be "Bearer" followed by exactly one token', realm);
    case 'revoked_token':
      return new InvalidTokenError('the token has been revoked', realm);
    default:
      return new InvalidTokenError(describeJwtFailure(err.inner), realm);
  }
}
