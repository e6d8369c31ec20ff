import { createLruCache } from '../cache';
import type { AccessTokenClaims } from './access-token-claims';

/** Successfully verified tokens, keyed by the whole raw token string. */
export interface VerifiedTokenCache {
  /** The cached claims, or undefined when absent or no longer valid at `nowSeconds`. */
  get(token: string, nowSeconds: number): AccessTokenClaims | undefined;
  /** Remembers a token that passed full verification; `claims` should be frozen (they are shared). */
  set(token: string, claims: AccessTokenClaims): void;
  readonly size: number;
}

/**
 * A bounded LRU cache of verified access tokens. A hit skips the signature check, which
 * is safe because the key is the entire token: the same bytes always verify the same way,
 * except for time, which is re-checked on every hit exactly as jsonwebtoken checks it
 * (`exp` and `nbf`, with the same clock tolerance). Only successes are ever stored, so the
 * cache can make a request faster but never make a rejected token pass.
 *
 * Known trade-off: a key withdrawn from the JWKS keeps its cached tokens valid until
 * their `exp`, as a stateless JWT would be anyway.
 */
export function createVerifiedTokenCache(maxEntries: number, clockTolerance: number): VerifiedTokenCache {
  const entries = createLruCache<AccessTokenClaims>(maxEntries);
  return {
    get(token, nowSeconds) {
      const claims = entries.get(token);
      if (claims === undefined) return undefined;
      if (nowSeconds >= claims.exp + clockTolerance) {
        entries.delete(token);
        return undefined;
      }
      if (claims.nbf !== undefined && claims.nbf > nowSeconds + clockTolerance) return undefined;
      return claims;
    },
    set(token, claims) {
      entries.set(token, claims);
    },
    get size() {
      return entries.size;
    },
  };
}
