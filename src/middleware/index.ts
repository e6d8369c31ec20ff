/**
 * Express middleware of the sample apps. `requireAccessToken` authenticates the bearer
 * access token and types `req.auth`; `requirePermission` then asks the authorizer.
 */
export { requireAccessToken } from './require-access-token';
export type { RequireAccessTokenOptions } from './require-access-token';
export type { AccessTokenClaims } from '../access-token';
export { ID_TOKEN_MESSAGE } from '../access-token';
export { requirePermission } from './require-permission';
export { requireScope } from './require-scope';

