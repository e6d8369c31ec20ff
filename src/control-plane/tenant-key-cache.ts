import { keyMatches, type TenantKeyKind } from './tenant-keys';

/** Tenant keys whose stored hashes are kept between checks; past it the cache starts over. */
export const TENANT_KEY_CACHE_MAX = 10_000;

/** Where {@link cachedTenantKeyCheck} reads from: the database's change stamp, and one stored hash. */
export interface TenantKeySource {
  /** Differs from every earlier stamp whenever the database may have changed (`SqlDatabase.changeStamp`). */
  changeStamp(): Promise<string>;
  /** The stored hash of the tenant's key of that kind; undefined for an unknown tenant. */
  keyHash(tenantId: string, kind: TenantKeyKind): Promise<Buffer | undefined>;
}

/**
 * The tenant key check with the stored hashes kept in memory while the database says nothing
 * changed. Every check first reads the change stamp — on SQLite one `PRAGMA data_version`,
 * which moves with any other connection's commit, the tenants CLI's in its own process
 * included, plus a count of this handle's own writes — and forgets every hash when it moved.
 * So a key rotated anywhere is refused by the first check that starts after the rotation's
 * commit, exactly as when the hash was read on every call; the stamp is one statement that
 * touches no table, where the read it saves walked the tenants index (docs/architecture.md,
 * "Tenant keys").
 *
 * A hash is read after its stamp, so it is never older than what the stamp stands for, and it
 * is kept only under that stamp: a check cannot store an old hash under a newer stamp another
 * check has already seen. Unknown tenants are never kept, so a flood of made-up tenant ids
 * cannot fill the cache; at most {@link TENANT_KEY_CACHE_MAX} keys are, after which it starts
 * over. Every candidate is still hashed and compared in constant time on every call, and a
 * failing read fails the check.
 */
export function cachedTenantKeyCheck(
  source: TenantKeySource,
  max: number = TENANT_KEY_CACHE_MAX,
): (tenantId: string, kind: TenantKeyKind, key: string | readonly string[]) => Promise<boolean> {
  let stampOfHashes: string | undefined;
  const hashes = new Map<string, Buffer>();
  return async function verifyTenantKey(tenantId, kind, key) {
    const stamp = await source.changeStamp();
    if (stamp !== stampOfHashes) {
      hashes.clear();
      stampOfHashes = stamp;
    }
    const slot = `${kind}:${tenantId}`;
    let hash = hashes.get(slot);
    if (hash === undefined) {
      hash = await source.keyHash(tenantId, kind);
      // Read after the stamp, so it is at least as new; kept under that stamp unless another
      // check has seen a newer one meanwhile (this hash could then be older than that).
      if (hash !== undefined && stampOfHashes === stamp) {
        if (hashes.size >= max) hashes.clear();
        hashes.set(slot, hash);
      }
    }
    return keyMatches(hash, key);
  };
}
