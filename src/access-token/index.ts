/**
 * The one access-token verification core (RFC 9068 JWT profile), framework-free. The apps'
 * Express middleware and the edge's JWT identity both call it.
 */
export { createAccessTokenVerifier } from './create-access-token-verifier';
export type { AccessTokenVerifier } from './create-access-token-verifier';
export type { AccessTokenClaims } from './access-token-claims';
export type { AccessTokenVerifierOptions } from './verifier-options';
export { ID_TOKEN_MESSAGE } from './check-token-shape';
