import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { JwksClient } from 'jwks-rsa';
import { InvalidTokenError, TemporarilyUnavailableError } from './errors';

/** Where the keys come from and how often they are fetched. */
export interface JwksKeyStoreOptions {
  /** The JWKS URL, or the key set itself (the IdP's own, for its `/userinfo`). */
  source: string | (() => Promise<{ readonly keys: readonly JsonWebKey[] }>);
  cooldownMs: number;
  maxAgeMs: number;
  realm: string;
  now: () => number;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The IdP's RS256 keys by `kid` (RFC 7515 §4.1.4), fetched with jwks-rsa, each parsed to a
 * `KeyObject` once per fetch (parsing a PEM costs as much as a signature check). What jwks-rsa's
 * own cache and rate limit (off here) lack: fetches are single-flight and one per cooldown, and a
 * token with an unknown kid inside the cooldown waits for the next fetch instead of failing, so
 * junk sent just before a key rotation cannot lock fresh tokens out; a set older than `maxAgeMs`
 * is refetched, so a withdrawn key stops verifying; a failed fetch keeps the keys we had.
 *
 * @throws InvalidTokenError for an unknown kid; TemporarilyUnavailableError when the set cannot be read.
 */
export function createJwksKeyStore(options: JwksKeyStoreOptions): (kid: string) => Promise<KeyObject> {
  const { source, cooldownMs, maxAgeMs, now } = options;
  const client = typeof source === 'string' ? new JwksClient({ jwksUri: source, cache: false, rateLimit: false, timeout: 5_000 }) : undefined;
  let keys = new Map<string, KeyObject>();
  let lastAttempt = Number.NEGATIVE_INFINITY;
  let lastSuccess = Number.NEGATIVE_INFINITY;
  let lastFailed = false;
  let inFlight: Promise<void> | undefined;

  async function signingKeys(): Promise<{ kid?: string | undefined; alg?: string | undefined; key: () => KeyObject }[]> {
    if (client) return (await client.getSigningKeys()).map((k) => ({ kid: k.kid, alg: k.alg, key: () => createPublicKey(k.getPublicKey()) }));
    const set = await (source as Exclude<typeof source, string>)();
    return set.keys.map((jwk) => ({ kid: jwk.kid as string | undefined, alg: jwk.alg as string | undefined, key: () => createPublicKey({ key: jwk, format: 'jwk' }) }));
  }

  async function fetchKeys(): Promise<void> {
    lastAttempt = now();
    try {
      const fetched = new Map<string, KeyObject>();
      for (const { kid, alg, key } of await signingKeys()) {
        // RS256 only (RFC 8725 §3.1): no EC/OKP keys, none pinned to another alg.
        if (typeof kid !== 'string' || kid === '' || (alg !== undefined && alg !== 'RS256')) continue;
        const parsed = key();
        if (parsed.asymmetricKeyType === 'rsa') fetched.set(kid, parsed);
      }
      [keys, lastSuccess, lastFailed] = [fetched, lastAttempt, false];
    } catch (err) {
      // jwks-rsa flags a failed fetch (`isEndpointUnavailable`) and a set without usable keys (JwksError); anything else is a bug.
      const { isEndpointUnavailable, name } = (err ?? {}) as { isEndpointUnavailable?: unknown; name?: unknown };
      if (client && isEndpointUnavailable !== true && name !== 'JwksError') throw err;
      lastFailed = true;
    }
  }

  const refetch = (): Promise<void> =>
    (inFlight ??= delay(Math.max(0, lastAttempt + cooldownMs - now()))
      .then(fetchKeys)
      .finally(() => (inFlight = undefined)));

  return async function getKey(kid) {
    // A stale set is refreshed at most once per cooldown; while the IdP is down, it keeps serving.
    if (keys.has(kid) && now() - lastSuccess >= maxAgeMs && (inFlight || now() - lastAttempt >= cooldownMs)) await refetch();
    if (!keys.has(kid)) await refetch();
    const key = keys.get(kid);
    if (key) return key;
    if (lastFailed) throw new TemporarilyUnavailableError();
    throw new InvalidTokenError('the token was signed with an unknown key', options.realm);
  };
}
