// Express middleware for token-based authorization: see README.md.
export { requireAccessToken, type RequireAccessTokenOptions } from './require-access-token';
export { requirePermission, requireScope, ForbiddenError, type PermissionRule } from './require-permission';
export { createAccessTokenVerifier, type AccessTokenVerifierOptions } from './access-token';
export { ID_TOKEN_MESSAGE, type AccessTokenClaims } from './check-token-shape';
export { getBearerToken } from './get-bearer-token';
export { AUTHZ_ERROR_CODES, authErrorHandler, buildBearerChallenge, quoteHeaderValue, HttpError, OAuthError, type ErrorCodeEntry } from './errors';
export { AuthorizerUnavailableError, InsufficientScopeError, InvalidRequestError, InvalidTokenError, TemporarilyUnavailableError, UnauthorizedError } from './errors';
export { InvalidPropertyError, type Authorizer, type AuthorizationRequest, type AuthorizationDecision, type ExplainedDecision, type DecisionReason } from './authorizer';
export { createAuthzenAuthorizer, type AuthzenAuthorizerOptions } from './authzen-authorizer';
