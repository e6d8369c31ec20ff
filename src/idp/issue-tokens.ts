import { createHash, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { OAuthClient } from '../config';
import type { Clock } from './clock';
import type { KeyStore } from './key-store';
import { SIGNING_ALG } from './signing-keys';
import type { IdpUser } from './user-store';

/** The successful token response (RFC 6749 §5.1). */
export interface TokenResponse {
  readonly access_token: string;
  readonly token_type: 'bearer';
  /** Lifetime of the access token in seconds. */
  readonly expires_in: number;
  readonly id_token: string;
}

export interface TokenIssuerOptions {
  readonly issuer: string;
  /** The sample API's audience: `aud` of access tokens, unless the client names its own. */
  readonly apiAudience: string;
  /** Registered clients; one with an `audience` gets access tokens for that API instead. */
  readonly clients?: readonly Pick<OAuthClient, 'clientId' | 'audience'>[];
  /** The demo client: `client_id` of access tokens, `aud` of ID tokens. */
  readonly clientId: string;
  readonly accessTokenTtl: number;
  readonly idTokenTtl: number;
  readonly keys: KeyStore;
  readonly clock: Clock;
}

/** What a grant decided about the tokens; the JSON password grant takes the defaults. */
export interface GrantContext {
  /** `client_id` of the access token and `aud` of the ID token. */
  readonly clientId?: string;
  /** Space-separated granted scope. */
  readonly scope?: string;
  /** OIDC Core §3.1.2.1: echoed into the ID token to bind it to the authorization request. */
  readonly nonce?: string;
  /** Seconds since the epoch when the user last entered their password. */
  readonly authTime?: number;
}

/** Issues tokens for an authenticated user under a grant's decisions. */
export type IssueTokens = (user: IdpUser, grant?: GrantContext) => Promise<TokenResponse>;

/** Scopes granted with every token: the OIDC ones the ID token's claims stand for. */
export const GRANTED_SCOPE = 'openid profile email';

/**
 * `at_hash` (OIDC Core §3.1.3.6): the left-most half of the SHA-256 digest of the
 * access token's ASCII octets, base64url-encoded — binds the ID token to its access token.
 */
export function accessTokenHash(accessToken: string): string {
  const digest = createHash('sha256').update(accessToken, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

/** Signs an access token (RFC 9068) and an ID token (OIDC Core §2) for an authenticated user. */
export function createTokenIssuer(options: TokenIssuerOptions): IssueTokens {
  const { issuer, apiAudience, clientId, accessTokenTtl, idTokenTtl, keys, clock } = options;
  if (accessTokenTtl <= 0 || idTokenTtl <= 0) throw new Error('token lifetimes must be positive');
  // One audience per client (the console's tokens are for the control plane only), so a
  // token stolen from one client's API cannot be replayed at another API.
  const apiOf = new Map((options.clients ?? []).map((c) => [c.clientId, c.audience ?? apiAudience]));

  return async function issueTokens(user, grant = {}) {
    const { kid, privateKey } = await keys.signingKey();
    const now = Math.floor(clock() / 1000);
    const audience = grant.clientId ?? clientId;

    // RFC 9068 §2.1: typ "at+jwt" lets resource servers refuse ID tokens used as access tokens.
    // §2.2: iss, exp, aud, sub, client_id, iat and jti are required.
    const accessToken = await new SignJWT({ client_id: audience, scope: grant.scope ?? GRANTED_SCOPE })
      .setProtectedHeader({ alg: SIGNING_ALG, typ: 'at+jwt', kid })
      .setIssuer(issuer)
      .setSubject(user.id)
      .setAudience(apiOf.get(audience) ?? apiAudience)
      .setIssuedAt(now)
      .setExpirationTime(now + accessTokenTtl)
      .setJti(randomUUID())
      .sign(privateKey);

    // OIDC Core §2: the ID token's audience is the client, never the API.
    const idToken = await new SignJWT({
      auth_time: grant.authTime ?? now,
      ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
      email: user.email,
      email_verified: true,
      name: user.name,
      at_hash: accessTokenHash(accessToken),
    })
      .setProtectedHeader({ alg: SIGNING_ALG, typ: 'JWT', kid })
      .setIssuer(issuer)
      .setSubject(user.id)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + idTokenTtl)
      .sign(privateKey);

    return { access_token: accessToken, token_type: 'bearer', expires_in: accessTokenTtl, id_token: idToken };
  };
}
