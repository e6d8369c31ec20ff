import { inTransaction, LOCK_TENANT, type SqlHandle } from '../control-plane';
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
 * The public keys a tenant signs its policy images with (the `signing_keys` table the control
 * plane's schema declares). Once a tenant has one, the push check ({@link signedImagePushCheck})
 * refuses its unsigned pushes and pushes no key of it verifies.
 */
export interface SigningKeyRepository {
  /** Registers a key under its id (idempotent), within {@link SIGNING_KEY_LIMITS}.maxKeys. */
  add(tenantId: string, kid: string, jwk: PublicSigningKey): Promise<AddKeyResult>;
  list(tenantId: string): Promise<RegisteredSigningKey[]>;
  /** False when the tenant has no key with that id. */
  remove(tenantId: string, kid: string): Promise<boolean>;
}

/**
 * The signing key repository over the control plane's database, or over one of its
 * transactions (`ControlPlaneRepositories.sql`), so a key and its audit entry commit together.
 */
export function createSigningKeyRepository(db: SqlHandle, now: () => number = Date.now): SigningKeyRepository {
  return {
    add(tenantId, kid, jwk) {
      return inTransaction(db, async (tx): Promise<AddKeyResult> => {
        // Count-then-insert: the tenant's row is locked first (by writing it), so two
        // concurrent adds cannot both see room for one more key.
        await tx.run(LOCK_TENANT, [tenantId]);
        if ((await tx.get('SELECT 1 AS one FROM signing_keys WHERE tenant_id = ? AND kid = ?', [tenantId, kid])) !== undefined) {
          return { created: false };
        }
        const count = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM signing_keys WHERE tenant_id = ?', [tenantId]);
        if (Number(count?.n ?? 0) >= SIGNING_KEY_LIMITS.maxKeys) return { created: false, quotaExceeded: true };
        await tx.run(
          'INSERT INTO signing_keys (tenant_id, kid, jwk, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (tenant_id, kid) DO NOTHING',
          [tenantId, kid, JSON.stringify(jwk), now()],
        );
        return { created: true };
      });
    },
    async list(tenantId) {
      const rows = await db.all<{ kid: string; jwk: string; created_at: number }>(
        'SELECT kid, jwk, created_at FROM signing_keys WHERE tenant_id = ? ORDER BY created_at, kid',
        [tenantId],
      );
      return rows.map((r) => ({ kid: r.kid, jwk: JSON.parse(r.jwk) as PublicSigningKey, createdAt: r.created_at }));
    },
    async remove(tenantId, kid) {
      return (await db.run('DELETE FROM signing_keys WHERE tenant_id = ? AND kid = ?', [tenantId, kid])).changes === 1;
    },
  };
}
