import { HttpError } from './http-error';
import { InvalidTokenError } from './bearer-errors';

/** jsonwebtoken's error classes, by name (RFC 7519 §4.1.4 exp, §4.1.5 nbf). */
function describeJwtFailure(name: unknown): string {
  switch (name) {
    case 'TokenExpiredError':
      return 'the token has expired';
    case 'NotBeforeError':
      return 'the token is not valid yet';
    default:
      return 'the token signature or claims are invalid';
  }
}

/**
 * Maps an error of `jsonwebtoken.verify` onto {@link InvalidTokenError}, by class name,
 * never by message text. Our own typed errors (thrown by the key lookup) pass through;
 * anything else is returned unchanged, so a bug becomes a 500 and never an allow.
 */
export function translateJwtError(err: unknown, realm: string): unknown {
  if (err instanceof HttpError) return err;
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  if (name === 'JsonWebTokenError' || name === 'TokenExpiredError' || name === 'NotBeforeError') {
    return new InvalidTokenError(describeJwtFailure(name), realm);
  }
  return err;
}
