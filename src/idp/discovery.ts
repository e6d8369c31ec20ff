import { Router } from 'express';
import type { KeyStore } from './key-store';
import { GRANT_HANDLERS } from './oauth/form-token-endpoint';
import { AUTHORIZE_PATH, END_SESSION_PATH, REVOKE_PATH, SUPPORTED_SCOPES, USERINFO_PATH } from './oauth/oauth-paths';
import { SIGNING_ALG } from './signing-keys';
import { TOKEN_PATH } from './token-endpoint';

/** Path of the JWKS (RFC 7517 §5). */
export const JWKS_PATH = '/.well-known/jwks.json';
/** Path of the discovery document (OpenID Connect Discovery 1.0 §4). */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

export interface DiscoveryOptions {
  /** The `iss` of every token. */
  readonly issuer: string;
  /** Where the IdP is reached; endpoints in the document are absolute URLs under it. */
  readonly baseUrl: string;
  readonly keys: KeyStore;
}

/**
 * Builds the discovery document (OpenID Connect Discovery 1.0 §3, RFC 8414 §2): every
 * endpoint and value listed here is implemented, and nothing else is listed.
 */
export function discoveryDocument(issuer: string, baseUrl: string): Record<string, unknown> {
  return {
    issuer,
    authorization_endpoint: `${baseUrl}${AUTHORIZE_PATH}`,
    token_endpoint: `${baseUrl}${TOKEN_PATH}`,
    userinfo_endpoint: `${baseUrl}${USERINFO_PATH}`,
    revocation_endpoint: `${baseUrl}${REVOKE_PATH}`,
    end_session_endpoint: `${baseUrl}${END_SESSION_PATH}`,
    jwks_uri: `${baseUrl}${JWKS_PATH}`,
    grant_types_supported: Object.keys(GRANT_HANDLERS),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    code_challenge_methods_supported: ['S256'],
    prompt_values_supported: ['none', 'login'],
    authorization_response_iss_parameter_supported: true,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [SIGNING_ALG],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SUPPORTED_SCOPES],
    claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'name', 'at_hash'],
  };
}

/**
 * `GET /.well-known/openid-configuration` and `GET /.well-known/jwks.json`. The JWKS holds
 * public keys only and is cached briefly, so a rotation reaches verifiers within a minute
 * (and at once for those that refetch on an unknown `kid`).
 */
export function discoveryRoutes(options: DiscoveryOptions): Router {
  const { issuer, baseUrl, keys } = options;
  const document = Object.freeze(discoveryDocument(issuer, baseUrl));
  const router = Router();
  router.get(DISCOVERY_PATH, function openidConfiguration(_req, res) {
    res.set('Cache-Control', 'public, max-age=300').json(document);
  });
  router.get(JWKS_PATH, async function jwks(_req, res) {
    res.set('Cache-Control', 'public, max-age=60').json({ keys: await keys.publicKeys() });
  });
  return router;
}
