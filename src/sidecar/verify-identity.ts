import { createAccessTokenVerifier } from '@outpost/express-authz';
import { BadRequestError, ServiceUnavailableError } from '../http';
import { InvalidTokenError, TemporarilyUnavailableError } from '@outpost/express-authz';

/** Where access tokens come from: the IdP's issuer, its JWKS and the API audience. */
export interface JwtIdentityOptions {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly audience: string;
  /** Seconds of clock skew tolerated on `exp`/`nbf`. */
  readonly clockToleranceSec?: number;
  /** Clock in milliseconds since the epoch (default `Date.now`). */
  readonly now?: () => number;
}

/** Turns an `IDENTITY_TYPE_JWT` identity (an access token) into the directory user id (`sub`). */
export type VerifyJwtIdentity = (token: string) => Promise<string>;

/**
 * Verifies access tokens with the same core as the apps' middleware (packages/express-authz): the
 * RFC 9068 profile, the JWKS key source and its refresh schedule, the verified-token cache.
 *
 * A bad token is a bad *parameter* of the decision request, so it answers 400
 * `invalid_identity` (not 401: the caller of the decision API is the app, whose own
 * credentials are not in question). An unreachable JWKS is our fault: 503.
 */
export function createJwtIdentityVerifier(options: JwtIdentityOptions): VerifyJwtIdentity {
  const core = createAccessTokenVerifier(
    {
      issuer: options.issuer,
      jwksUri: options.jwksUri,
      audience: options.audience,
      clockTolerance: options.clockToleranceSec ?? 5,
      ...(options.now ? { now: options.now } : {}),
    },
    'createJwtIdentityVerifier',
  );
  return async function verifyJwtIdentity(token) {
    try {
      return (await core.verify(token)).sub;
    } catch (err) {
      if (err instanceof InvalidTokenError) {
        throw new BadRequestError('the identity is not a valid access token', 'invalid_identity');
      }
      if (err instanceof TemporarilyUnavailableError) {
        throw new ServiceUnavailableError('the identity provider keys are unavailable', 'jwks_unavailable');
      }
      throw err;
    }
  };
}
