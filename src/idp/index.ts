// The IdP layer's public surface; other layers import only from here.
export { createIdpApp } from './create-idp-app';
export { openIdp, openIdpKeyStore, idpFiles, HASHING_IN_FLIGHT, HASHING_QUEUE } from './open-idp';
export { createHashingLimiter, HashingOverloadedError } from './limit-hashing';
export type { HashingLimiter } from './limit-hashing';
export type { Idp } from './open-idp';
export { openKeyStore } from './key-store';
export type { KeyStore } from './key-store';
export { openUserStore } from './user-store';
export type { UserStore } from './user-store';
export { hashPassword, verifyPassword } from './password-hash';
export { createTokenIssuer } from './issue-tokens';
export { createLoginThrottle } from './login-throttle';
export { TOKEN_PATH } from './token-endpoint';
export { DISCOVERY_PATH, JWKS_PATH, LOGIN_PATH, ROUTES, USERINFO_PATH } from './provider';
export { systemClock } from './clock';
