import { Router } from 'express';
import type { JsonWebKey } from 'node:crypto';
import { createAccessTokenVerifier, getBearerToken, InvalidTokenError } from '@outpost/express-authz';
import type { KeyStore } from './key-store';
import type { UserStore } from './user-store';
import { USERINFO_PATH } from './provider';

/** What userinfo needs: the IdP's own keys and users, and what its access tokens look like. */
/** The realm of /userinfo's challenges. */
const REALM = 'userinfo';

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

/**
 * `GET /userinfo` (OIDC Core §5.3): the claims the access token's scope covers, for the
 * bearer of an access token this IdP issued. The token goes through the same checks as at the
 * apps — the middleware package's verifier (packages/express-authz): the header only (RFC 6750
 * §2.1), `typ` at+jwt, the pinned algorithm, our issuer, one of the audiences it issues for,
 * `exp` and `iat` required, `iat` not in the future beyond the skew — with the IdP's own key
 * set in place of a JWKS URL.
 */
export function userinfoEndpoint(deps: UserinfoDeps): Router {
  const verifier = createAccessTokenVerifier(
    {
      issuer: deps.issuer,
      audience: deps.audiences,
      jwks: async () => ({ keys: (await deps.keys.publicKeys()).map((jwk): JsonWebKey => ({ ...jwk })) }),
      // The set is in-process: read it again at once for an unknown kid, and every second.
      jwksCooldownMs: 0,
      jwksMaxAgeMs: 1_000,
      clockTolerance: deps.clockTolerance,
      realm: REALM,
    },
    'userinfoEndpoint',
  );
  const router = Router();
  router.get(USERINFO_PATH, async function userinfo(req, res) {
    res.set('Cache-Control', 'no-store');
    const token = getBearerToken({ authorization: req.headersDistinct.authorization, query: req.query }, REALM);
    const claims = await verifier.verify(token);
    const user = deps.users.list().find((u) => u.id === claims.sub);
    if (!user) throw new InvalidTokenError('the access token names no known user', REALM);
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    res.json({
      sub: user.id,
      ...(scopes.includes('profile') ? { name: user.name } : {}),
      ...(scopes.includes('email') ? { email: user.email, email_verified: true } : {}),
    });
  });
  return router;
}
