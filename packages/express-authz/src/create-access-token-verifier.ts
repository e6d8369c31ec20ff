import jsonwebtoken, { type Jwt, type JwtPayload, type VerifyOptions } from 'jsonwebtoken';
import type { KeyObject } from 'node:crypto';
import { InvalidTokenError } from './bearer-errors';
import type { AccessTokenClaims } from './access-token-claims';
import { checkCompactShape, checkTokenShape } from './check-token-shape';
import { translateJwtError } from './translate-jwt-error';
import { createJwksKeyStore } from './jwks-key-store';
import { createVerifiedTokenCache, type VerifiedTokenCache } from './verified-token-cache';
import { resolveAccessTokenOptions, type AccessTokenVerifierOptions, type ResolvedAccessTokenOptions } from './verifier-options';

/**
 * One access-token verifier: the RFC 9068 profile, the JWKS key source, the verified-token
 * cache and the error mapping. `verify` runs all of it; the Express adapter hands the same
 * pieces to express-jwt (`getKey` as its secret, `jwtOptions` as its verify options), so the
 * apps and the edge cannot disagree about a token.
 */
export interface AccessTokenVerifier {
  /**
   * Verifies a raw token and returns its frozen claims.
   * @throws InvalidTokenError for any bad token; TemporarilyUnavailableError when keys cannot be fetched.
   */
  verify(token: string): Promise<AccessTokenClaims>;
  /** Strict compact-JWS check of the raw token (length, alphabet, no padding). */
  checkCompact(token: string): void;
  /** Profile check of the decoded token, then its key from the JWKS by `kid`. */
  getKey(decoded: Jwt | null | undefined): Promise<KeyObject>;
  /** jsonwebtoken's verify options: RS256 pinned, iss, aud, clock tolerance, our clock. */
  readonly jwtOptions: VerifyOptions;
  /** Maps a jsonwebtoken error onto the typed bearer errors. */
  translateError(err: unknown): unknown;
  /**
   * The claims of a signature-verified payload, copied and frozen (they are shared through the
   * cache). The profile was already checked on these same bytes by `getKey`.
   */
  acceptClaims(payload: JwtPayload): AccessTokenClaims;
  /** Verified tokens kept until `exp`. */
  readonly cache: VerifiedTokenCache;
  readonly options: ResolvedAccessTokenOptions;
}


/**
 * Creates the verifier. Options are checked here, once.
 * @throws TypeError when an option is invalid (the message starts with `label`).
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions, label = 'createAccessTokenVerifier'): AccessTokenVerifier {
  const opts = resolveAccessTokenOptions(options, label);
  const { realm, now } = opts;
  const nowSeconds = () => Math.floor(now() / 1000);
  const keys = createJwksKeyStore({
    source: opts.jwksUri ?? opts.jwks!,
    cooldownMs: opts.jwksCooldownMs,
    maxAgeMs: opts.jwksMaxAgeMs,
    timeoutMs: opts.jwksTimeoutMs,
    realm,
    now,
  });
  const cache = createVerifiedTokenCache(opts.tokenCacheSize, opts.clockTolerance);
  const expected = { issuer: opts.issuer, audiences: opts.audiences, clientId: opts.clientId, realm, clockTolerance: opts.clockTolerance, nowSeconds };
  const jwtOptions: VerifyOptions = {
    algorithms: ['RS256'],
    issuer: opts.issuer,
    audience: [...opts.audiences] as [string, ...string[]], // one at least: the options were checked
    clockTolerance: opts.clockTolerance,
  };
  // jsonwebtoken reads `clockTimestamp` once per verify call; a getter makes it use our clock.
  Object.defineProperty(jwtOptions, 'clockTimestamp', { enumerable: true, get: nowSeconds });
  Object.freeze(jwtOptions);

  const getKey = (decoded: Jwt | null | undefined) => keys.getKey(checkTokenShape(decoded, expected));
  // Claims are shared by every request that presents the same token, so none may change them:
  // a deep copy (claims are JSON) with every object in it frozen.
  const acceptClaims = (payload: JwtPayload) => JSON.parse(JSON.stringify(payload), (_name, value: unknown) => (typeof value === 'object' && value !== null ? Object.freeze(value) : value)) as AccessTokenClaims;

  return {
    async verify(token) {
      const cached = cache.get(token, nowSeconds());
      if (cached) return cached;
      checkCompactShape(token, realm);
      const decoded = jsonwebtoken.decode(token, { complete: true });
      if (decoded === null || typeof decoded.payload !== 'object') throw new InvalidTokenError('the token is not a well-formed JWT', realm);
      const key = await getKey(decoded);
      let payload: JwtPayload;
      try {
        payload = jsonwebtoken.verify(token, key, { ...jwtOptions, complete: false }) as JwtPayload;
      } catch (err) {
        throw translateJwtError(err, realm);
      }
      const claims = acceptClaims(payload);
      cache.set(token, claims);
      return claims;
    },
    checkCompact: (token) => checkCompactShape(token, realm),
    getKey,
    jwtOptions,
    translateError: (err) => translateJwtError(err, realm),
    acceptClaims,
    cache,
    options: opts,
  };
}
