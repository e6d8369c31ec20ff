/**
 * The OAuth 2.0 bearer-token protocol layer (RFC 6750): token extraction, typed errors and
 * the challenge header. Framework-neutral — nothing here imports Express.
 */
export { getBearerToken } from './get-bearer-token';
export type { BearerRequest } from './get-bearer-token';
export {
  DEFAULT_REALM,
  InsufficientScopeError,
  InvalidRequestError,
  InvalidTokenError,
  TemporarilyUnavailableError,
  UnauthorizedError,
} from './errors';
export { buildBearerChallenge, quoteHeaderValue } from './www-authenticate';

