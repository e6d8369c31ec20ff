import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { JwksClient } from 'jwks-rsa';
import { InvalidTokenError, TemporarilyUnavailableError } from './bearer-errors';

/** Verification keys of the IdP, looked up only by `kid` (RFC 7515 §4.1.4). */
export interface JwksKeyStore {
  /**
   * The RSA public key with this `kid`.
   * @throws InvalidTokenError when the IdP has no such key.
   * @throws TemporarilyUnavailableError when the JWKS cannot be fetched.
   */
  getKey(kid: string): Promise<KeyObject>;
}

/** What {@link createJwksKeyStore} needs. */
export interface JwksKeyStoreOptions {
  /** The JWKS URL, or the key set itself (the IdP's own, for its `/userinfo`). */
  source: string | (() => Promise<{ readonly keys: readonly JsonWebKey[] }>);
  cooldownMs: number;
  maxAgeMs: number;
  timeoutMs: number;
  realm: string;
  now: () => number;
}

/**
 * jwks-rsa marks fetch failures (network errors, non-2xx, bad JSON) with
 * `isEndpointUnavailable` and raises `JwksError` for a JWKS without usable keys. Recognised
 * by flag and class name, never by message text.
 */
function isJwksFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { isEndpointUnavailable, name } = err as { isEndpointUnavailable?: unknown; name?: unknown };
  return isEndpointUnavailable === true || name === 'JwksError';
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Caches the IdP's signing keys as `KeyObject`s by `kid`. jwks-rsa hands out PEM strings;
 * parsing one costs as much as verifying a signature, so each key is parsed once per fetch.
 *
 * Fetches are single-flight and at most one per cooldown, so a flood of random `kid`s cannot
 * hammer the IdP. A token with an unknown kid (only tokens whose unverified claims already
 * passed the profile check get here) that arrives inside the cooldown waits for the next
 * fetch instead of failing, so junk sent just before a key rotation cannot lock fresh tokens
 * out. The set is also refetched once it is older than `maxAgeMs`, so a key the IdP withdrew
 * stops verifying. A failed fetch keeps the keys we had: the IdP may be restarting.
 */
export function createJwksKeyStore(options: JwksKeyStoreOptions): JwksKeyStore {
  const { source } = options;
  // jwks-rsa's own cache and rate limiter are off: this store does both, by kid.
  const client = typeof source === 'string' ? new JwksClient({ jwksUri: source, cache: false, rateLimit: false, timeout: options.timeoutMs }) : undefined;
  let keys = new Map<string, KeyObject>();
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let lastSuccess = Number.NEGATIVE_INFINITY;
  let lastFailed = false;
  let inFlight: Promise<void> | undefined;

  /** The set's keys as (kid, alg, key): from the JWKS URL through jwks-rsa, or from the set given. */
  async function signingKeys(): Promise<{ kid: string | undefined; alg: string | undefined; key: () => KeyObject }[]> {
    if (client) return (await client.getSigningKeys()).map((k) => ({ kid: k.kid, alg: k.alg, key: () => createPublicKey(k.getPublicKey()) }));
    const { keys: jwks } = await (source as Exclude<typeof source, string>)();
    return jwks.map((jwk) => ({ kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, alg: typeof jwk.alg === 'string' ? jwk.alg : undefined, key: () => createPublicKey({ key: jwk, format: 'jwk' }) }));
  }

  async function fetchKeys(): Promise<void> {
    lastAttempt = options.now();
    try {
      const fetched = new Map<string, KeyObject>();
      for (const signingKey of await signingKeys()) {
        // RS256 only (RFC 8725 §3.1): skip EC/OKP keys and keys pinned to another alg.
        if (!signingKey.kid || (signingKey.alg !== undefined && signingKey.alg !== 'RS256')) continue;
        const key = signingKey.key();
        if (key.asymmetricKeyType === 'rsa') fetched.set(signingKey.kid, key);
      }
      keys = fetched;
      lastSuccess = lastAttempt;
      lastFailed = false;
    } catch (err) {
      // A set given in-process that cannot be read is as unavailable as a JWKS URL that does not answer.
      if (client && !isJwksFailure(err)) throw err;
      lastFailed = true;
    }
  }

  /** One shared fetch, started once the cooldown since the last attempt has passed. */
  function refetch(): Promise<void> {
    inFlight ??= delay(Math.max(0, lastAttempt + options.cooldownMs - options.now()))
      .then(fetchKeys)
      .finally(() => {
        inFlight = undefined;
      });
    return inFlight;
  }

  return {
    async getKey(kid) {
      const stale = options.now() - lastSuccess >= options.maxAgeMs;
      // A stale set is refreshed at most once per cooldown; while the IdP is down, keep serving it.
      if (keys.has(kid) && stale && (inFlight || options.now() - lastAttempt >= options.cooldownMs)) await refetch();
      if (!keys.has(kid)) await refetch();
      const key = keys.get(kid);
      if (key) return key;
      if (lastFailed) throw new TemporarilyUnavailableError();
      throw new InvalidTokenError('the token was signed with an unknown key', options.realm);
    },
  };
}
