/**
 * Express middleware for token-based authorization done right: `requireAccessToken` admits
 * only RFC 9068 access tokens (express-jwt + jwks-rsa, with the `typ` check and the ID-token
 * refusal before any key lookup), `requirePermission` asks a pluggable {@link Authorizer} per
 * route, and every refusal is JSON with its RFC 6750 challenge. See README.md.
 */
export { requireAccessToken } from './require-access-token';
export type { RequireAccessTokenOptions } from './require-access-token';
export { requirePermission, ForbiddenError } from './require-permission';
export type { PermissionRule } from './require-permission';
export { requireScope } from './require-scope';
export { createAuthzenAuthorizer } from './authzen-authorizer';
export type { AuthzenAuthorizerOptions } from './authzen-authorizer';
export { AuthorizerUnavailableError, InvalidPropertyError } from './authorizer';
export type { Authorizer, AuthorizationRequest, AuthorizationDecision, ExplainedDecision, DecisionReason } from './authorizer';
export { authErrorHandler, sendError } from './send-error';
export type { AnswerOptions } from './send-error';
export { HttpError, OAuthError } from './http-error';
export { AUTHZ_ERROR_CODES } from './error-codes';
export type { AuthzErrorCode, ErrorCodeEntry } from './error-codes';
export { DEFAULT_REALM, InsufficientScopeError, InvalidRequestError, InvalidTokenError, TemporarilyUnavailableError, UnauthorizedError } from './bearer-errors';
export { buildBearerChallenge, quoteHeaderValue } from './www-authenticate';
export { getBearerToken } from './get-bearer-token';
export type { BearerRequest } from './get-bearer-token';
export { createAccessTokenVerifier } from './create-access-token-verifier';
export type { AccessTokenVerifier } from './create-access-token-verifier';
export type { AccessTokenVerifierOptions } from './verifier-options';
export type { AccessTokenClaims } from './access-token-claims';
export { ID_TOKEN_MESSAGE } from './check-token-shape';
