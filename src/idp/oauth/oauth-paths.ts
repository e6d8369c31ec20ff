/** Where the OAuth 2.0 / OIDC endpoints live, relative to `{auth_url}`. */
export const AUTHORIZE_PATH = '/authorize';
/** The login page's form posts here (not an OAuth endpoint; the IdP's own page). */
export const LOGIN_PATH = '/login';
/** OIDC Core §5.3. */
export const USERINFO_PATH = '/userinfo';
/** RFC 7009. */
export const REVOKE_PATH = '/revoke';
/** OIDC RP-Initiated Logout 1.0. */
export const END_SESSION_PATH = '/logout';

/** Scopes a client may ask for: the OIDC ones and the sample APIs' (`api`). */
export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'api'] as const;

/** How long an authorization code may wait for its exchange (RFC 6749 §4.1.2 recommends ≤ 10 min). */
export const CODE_TTL_SECONDS = 60;
/** How long a refresh-token family lives from sign-in, however often it rotates. */
export const REFRESH_TTL_SECONDS = 8 * 3600;
/** How long the login session cookie spares a second password entry. */
export const SESSION_TTL_SECONDS = 15 * 60;
/** How long a login page may stay open before its form is refused. */
export const LOGIN_REQUEST_TTL_SECONDS = 10 * 60;
