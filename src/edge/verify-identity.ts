import { createRemoteJWKSet, jwtVerify } from 'jose';
import { BadRequestError, ServiceUnavailableError } from '../http';

/** Where access tokens come from: the IdP's issuer, its JWKS and the API audience. */
export interface JwtIdentityOptions {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly audience: string;
  /** Seconds of clock skew tolerated on `exp`/`nbf`/`iat`. */
  readonly clockToleranceSec?: number;
}

/** Turns an `IDENTITY_TYPE_JWT` identity (an access token) into the directory user id (`sub`). */
export type VerifyJwtIdentity = (token: string) => Promise<string>;

/** jose error codes that mean "this token is not acceptable" — the caller's problem, not ours. */
const TOKEN_PROBLEMS = new Set([
  'ERR_JWT_EXPIRED',
  'ERR_JWT_CLAIM_VALIDATION_FAILED',
  'ERR_JWT_INVALID',
  'ERR_JWS_INVALID',
  'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
  'ERR_JOSE_ALG_NOT_ALLOWED',
  'ERR_JOSE_NOT_SUPPORTED',
  'ERR_JWKS_NO_MATCHING_KEY',
  'ERR_JWKS_MULTIPLE_MATCHING_KEYS',
]);

/**
 * Verifies access tokens as RFC 9068 asks: `typ` `at+jwt` (§2.1), RS256 only, exact `iss`,
 * `aud` containing the API audience, `exp` and `sub` required (§4). Keys come only from
 * the IdP's JWKS, fetched and cached by jose (unknown `kid` → one refetch per cooldown).
 *
 * A bad token is a bad *parameter* of the decision request, so it answers 400
 * `invalid_identity` (not 401: the caller of the decision API is the app, whose own
 * credentials are not in question). An unreachable JWKS is our fault: 503.
 */
export function createJwtIdentityVerifier(options: JwtIdentityOptions): VerifyJwtIdentity {
  const jwks = createRemoteJWKSet(new URL(options.jwksUri));
  const verifyOptions = {
    issuer: options.issuer,
    audience: options.audience,
    algorithms: ['RS256'],
    typ: 'at+jwt',
    requiredClaims: ['exp', 'sub'],
    clockTolerance: options.clockToleranceSec ?? 5,
  };
  return async function verifyJwtIdentity(token) {
    try {
      const { payload } = await jwtVerify(token, jwks, verifyOptions);
      return payload.sub as string;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code === 'string' && TOKEN_PROBLEMS.has(code)) {
        throw new BadRequestError('the identity is not a valid access token', 'invalid_identity');
      }
      throw new ServiceUnavailableError('the identity provider keys are unavailable', 'jwks_unavailable');
    }
  };
}
