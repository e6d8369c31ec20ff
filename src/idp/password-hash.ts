import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * scrypt cost: N = 2^15, r = 8, p = 1 (32 MiB per hash), above the N = 2^14 floor of
 * RFC 7914's interactive-login example. The parameters travel inside each stored hash,
 * so raising them later re-hashes nothing and breaks nothing.
 */
const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
const PREFIX = 'scrypt';

function derive(password: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // maxmem must exceed 128·N·r bytes or node refuses; leave headroom.
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/**
 * Hashes a password with a fresh random salt. Result format (all base64url):
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` — self-describing, never the password itself.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, COST);
  return [PREFIX, COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

interface ParsedHash {
  cost: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parseHash(stored: string): ParsedHash | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== PREFIX) return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64url');
  const key = Buffer.from(parts[5], 'base64url');
  const sane = [N, r, p].every((n) => Number.isInteger(n) && n > 0) && N <= 2 ** 20 && r <= 32 && p <= 16;
  if (!sane || salt.length < SALT_LENGTH || key.length !== KEY_LENGTH) return undefined;
  return { cost: { N, r, p }, salt, key };
}

/** True when `stored` is a hash this module can verify (used to validate users.json). */
export function isPasswordHash(stored: string): boolean {
  return parseHash(stored) !== undefined;
}

/**
 * Checks a password against a stored hash. The full scrypt derivation always runs and
 * the comparison is constant-time (`timingSafeEqual`), so the answer's timing says
 * nothing about how close the guess was. A malformed hash never matches (fail closed).
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(candidate, parsed.key);
}
