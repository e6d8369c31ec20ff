import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Readable prefixes so a leaked secret is recognisable (and greppable by secret scanners). */
export type SecretPrefix = 'dk' | 'ak' | 'cs';

/** A fresh high-entropy secret: 32 random bytes, base64url, behind a readable prefix. */
export function generateSecret(prefix: SecretPrefix): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * SHA-256 of a secret. A plain fast hash is enough here, unlike for passwords: the secrets
 * carry 256 bits of entropy, so nobody can brute-force them from a stolen database.
 */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Hash compared against when the owner is unknown, so both paths do the same work. */
const DUMMY_HASH = hashSecret('outpost-unknown-owner');

/**
 * Constant-time check of a presented secret against a stored hash (undefined when the
 * tenant or connection is unknown: the comparison still runs, then fails).
 */
export function secretMatches(presented: string, storedHash: Buffer | undefined): boolean {
  const candidate = hashSecret(presented);
  // A missing or malformed stored hash still costs one comparison, and can never match —
  // not even the secret behind the dummy hash.
  const usable = storedHash !== undefined && storedHash.length === candidate.length;
  return timingSafeEqual(candidate, usable ? storedHash : DUMMY_HASH) && usable;
}
