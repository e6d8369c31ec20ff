import type { SqlHandle } from './in-transaction';
import { generateSecret, hashSecret, secretMatches } from './secrets';
import { UnknownTenantError } from './unknown-tenant-error';

/** Which tenant key: the Discovery API key (relay management) or the admin key (pushes, directory writes). */
export type TenantKeyKind = 'discovery' | 'admin';

/** A tenant's two keys, kept only as SHA-256 hashes. */
export interface TenantKeyRepository {
  /** Replaces a key; the old one stops working at once. */
  rotateKey(tenantId: string, kind: TenantKeyKind): Promise<string>;
  /**
   * Whether `key`, or any of several candidate readings of one credential, is the tenant's
   * key of that kind: one read of the stored hash, every candidate compared in constant time.
   */
  verifyKey(tenantId: string, kind: TenantKeyKind, key: string | readonly string[]): Promise<boolean>;
  /** The stored hash of the tenant's key of that kind; undefined for an unknown tenant. */
  keyHash(tenantId: string, kind: TenantKeyKind): Promise<Buffer | undefined>;
}

// The key columns by kind: fixed texts, never built from input.
const SELECT_KEY_HASH = {
  discovery: 'SELECT discovery_key_hash AS hash FROM tenants WHERE id = ?',
  admin: 'SELECT admin_key_hash AS hash FROM tenants WHERE id = ?',
} as const;
const UPDATE_KEY_HASH = {
  discovery: 'UPDATE tenants SET discovery_key_hash = ? WHERE id = ?',
  admin: 'UPDATE tenants SET admin_key_hash = ? WHERE id = ?',
} as const;

/** A new key of that kind, in plain text (shown once; only its hash is stored). */
export const generateTenantKey = (kind: TenantKeyKind): string => generateSecret(kind === 'discovery' ? 'dk' : 'ak');

/** Builds the tenant key repository over an open, migrated database. */
export function createTenantKeyRepository(db: SqlHandle): TenantKeyRepository {
  const keyHash = async (tenantId: string, kind: TenantKeyKind) => (await db.get<{ hash: Buffer }>(SELECT_KEY_HASH[kind], [tenantId]))?.hash;
  return {
    async rotateKey(tenantId, kind) {
      const key = generateTenantKey(kind);
      const { changes } = await db.run(UPDATE_KEY_HASH[kind], [hashSecret(key), tenantId]);
      if (changes === 0) throw new UnknownTenantError(tenantId);
      return key;
    },
    async verifyKey(tenantId, kind, key) {
      return keyMatches(await keyHash(tenantId, kind), key);
    },
    keyHash,
  };
}

/**
 * Whether `key`, or any of several candidate readings of one credential, matches a stored key
 * hash (undefined for an unknown tenant: never a match). Constant time, and no early exit:
 * each candidate costs one comparison whichever matches.
 */
export function keyMatches(storedHash: Buffer | undefined, key: string | readonly string[]): boolean {
  let matched = false;
  for (const candidate of typeof key === 'string' ? [key] : key) matched = secretMatches(candidate, storedHash) || matched;
  return matched;
}
