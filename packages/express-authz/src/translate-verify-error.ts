import { HttpError } from './http-error';
import type { AccessTokenVerifier } from './create-access-token-verifier';
import { InvalidRequestError, InvalidTokenError, UnauthorizedError } from './bearer-errors';

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

/**
 * Maps what express-jwt passes to `next(err)` onto our typed bearer errors, by error `code`
 * and class name, never by message text; the jsonwebtoken error inside goes through the core's
 * own mapping. Our own errors (thrown by the key lookup) pass through; anything unknown is
 * returned unchanged and becomes a 500.
 */
export function translateVerifyError(err: unknown, core: AccessTokenVerifier): unknown {
  const { realm } = core.options;
  if (err instanceof HttpError || !isExpressJwtError(err)) return err;
  switch (err.code) {
    case 'credentials_required':
      return new UnauthorizedError(undefined, realm);
    case 'credentials_bad_scheme':
    case 'credentials_bad_format':
      return new InvalidRequestError('the Authorization header must be "Bearer" followed by exactly one token', realm);
    case 'revoked_token':
      return new InvalidTokenError('the token has been revoked', realm);
    default: {
      const inner = core.translateError(err.inner);
      return inner instanceof HttpError ? inner : new InvalidTokenError('the token signature or claims are invalid', realm);
    }
  }
}
