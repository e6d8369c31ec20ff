import { Router } from 'express';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { OAuthError } from '../http';
import type { KeyStore } from './key-store';
import { SIGNING_ALG } from './signing-keys';
import type { UserStore } from './user-store';
import { USERINFO_PATH } from './provider';

/** What userinfo needs: the IdP's own keys and users, and what its access tokens look like. */
export interface UserinfoDeps {
  readonly issuer: string;
  /** Every audience this IdP issues access tokens for: the sample API's and the clients' own. */
  readonly audiences: readonly string[];
  readonly keys: KeyStore;
  readonly users: UserStore;
  /**
   * The skew allowed on token times (s), as the apps allow. Times are read from the system
   * clock, as the apps read them: the provider stamps the tokens of its grants with it too.
   */
  readonly clockTolerance: number;
}

/** RFC 6750 §3: the challenge a missing or bad token gets. */
function challenge(status: 400 | 401, error: 'invalid_request' | 'invalid_token' | undefined, message: string): OAuthError {
  const params = error ? `, error="${error}", error_description="${message.replace(/["\\]/g, '')}"` : '';
  return new OAuthError(status, error ?? 'invalid_token', message, { 'WWW-Authenticate': `Bearer realm="userinfo"${params}` });
}

/**
 * `GET /userinfo` (OIDC Core §5.3): the claims the access token's scope covers, for the
 * bearer of an access token this IdP issued (RFC 9068: `typ` at+jwt, our issuer, one of the
 * audiences it issues for, pinned algorithm) and whose times the apps would accept too: `exp`
 * and `iat` required, `iat` not in the future beyond the skew. The token is read from the header
 * only (RFC 6750 §2.1).
 */
export function userinfoEndpoint(deps: UserinfoDeps): Router {
  const router = Router();
  router.get(USERINFO_PATH, async function userinfo(req, res) {
    res.set('Cache-Control', 'no-store');
    const header = req.headers.authorization;
    if (!header) throw challenge(401, undefined, 'an access token is required');
    const match = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
    if (!match) throw challenge(400, 'invalid_request', 'use Authorization: Bearer <token>');

    let payload: JWTPayload;
    try {
      const jwks = createLocalJWKSet({ keys: (await deps.keys.publicKeys()) as unknown as Parameters<typeof createLocalJWKSet>[0]['keys'] });
      ({ payload } = await jwtVerify(match[1], jwks, {
        issuer: deps.issuer,
        audience: [...deps.audiences],
        algorithms: [SIGNING_ALG],
        typ: 'at+jwt',
        requiredClaims: ['exp', 'iat', 'sub'],
        clockTolerance: deps.clockTolerance,
      }));
    } catch {
      throw challenge(401, 'invalid_token', 'the access token is invalid or expired');
    }
    // RFC 9068 §2.2 makes iat required and §4 lets a validator refuse one in the future: a token
    // "issued" ahead of our clock is forged or from a broken clock (jose checks iat's type only).
    if ((payload.iat as number) > Date.now() / 1000 + deps.clockTolerance) {
      throw challenge(401, 'invalid_token', 'the access token was issued in the future (iat)');
    }
    const user = deps.users.list().find((u) => u.id === payload.sub);
    if (!user) throw challenge(401, 'invalid_token', 'the access token names no known user');
    const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    res.json({
      sub: user.id,
      ...(scopes.includes('profile') ? { name: user.name } : {}),
      ...(scopes.includes('email') ? { email: user.email, email_verified: true } : {}),
    });
  });
  return router;
}
