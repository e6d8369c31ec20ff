import type { Database } from 'better-sqlite3';
import { SIGNING_KEY_LIMITS, type PublicSigningKey } from '../policy';

/** One registered public key, as listed. */
export interface RegisteredSigningKey {
  /** RFC 7638 thumbprint of the key. */
  readonly kid: string;
  readonly jwk: PublicSigningKey;
  readonly createdAt: number;
}

/** What registering did: `created` is false for a key already registered; `quotaExceeded` when nothing was stored. */
export type AddKeyResult = { readonly created: boolean; readonly quotaExceeded?: false } | { readonly created: false; readonly quotaExceeded: true };

/**
 * The public keys a tenant signs its policy images with. Once a tenant has one, the
 * control plane refuses its unsigned pushes and pushes no key of it verifies.
 */
export interface SigningKeyRepository {
  /** Registers a key under its id (idempotent), within {@link SIGNING_KEY_LIMITS}.maxKeys. */
  add(tenantId: string, kid: string, jwk: PublicSigningKey): AddKeyResult;
  list(tenantId: string): RegisteredSigningKey[];
  /** False when the tenant has no key with that id. */
  remove(tenantId: string, kid: string): boolean;
}

/** Builds the signing key repository over an open, migrated database. */
export function createSigningKeyRepository(db: Database, now: () => number): SigningKeyRepository {
  const insert = db.prepare('INSERT OR IGNORE INTO signing_keys (tenant_id, kid, jwk, created_at) VALUES (?, ?, ?, ?)');
  const count = db.prepare('SELECT COUNT(*) FROM signing_keys WHERE tenant_id = ?').pluck();
  const exists = db.prepare('SELECT 1 FROM signing_keys WHERE tenant_id = ? AND kid = ?').pluck();
  const select = db.prepare('SELECT kid, jwk, created_at FROM signing_keys WHERE tenant_id = ? ORDER BY created_at, kid');
  const remove = db.prepare('DELETE FROM signing_keys WHERE tenant_id = ? AND kid = ?');

  const add = db.transaction((tenantId: string, kid: string, jwk: PublicSigningKey): AddKeyResult => {
    if (exists.get(tenantId, kid) !== undefined) return { created: false };
    if ((count.get(tenantId) as number) >= SIGNING_KEY_LIMITS.maxKeys) return { created: false, quotaExceeded: true };
    insert.run(tenantId, kid, JSON.stringify(jwk), now());
    return { created: true };
  });

  return {
    add: (tenantId, kid, jwk) => add.immediate(tenantId, kid, jwk),
    list: (tenantId) =>
      (select.all(tenantId) as { kid: string; jwk: string; created_at: number }[]).map((r) => ({
        kid: r.kid,
        jwk: JSON.parse(r.jwk) as PublicSigningKey,
        createdAt: r.created_at,
      })),
    remove: (tenantId, kid) => remove.run(tenantId, kid).changes === 1,
  };
}
