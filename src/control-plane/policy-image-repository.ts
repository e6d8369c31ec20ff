import type { SqlExecutor } from '../sql';
import { inTransaction, type SqlHandle } from './in-transaction';
import { LOCK_TENANT } from './tenant-repository';
import type { PolicyImage } from '../policy';

/** The tag edges follow; pushes move it. */
export const LATEST_TAG = 'latest';

/** One stored image version, newest first in listings. */
export interface PolicyImageVersion {
  readonly digest: string;
  readonly createdAt: number;
  /** Whether it was pushed with a signature (kept with the image). */
  readonly signed: boolean;
  /** The version its signature signed; null when unsigned or signed in the first format (no version). */
  readonly signedVersion: number | null;
}

/** A policy name, the digest its `latest` tag points at, and whether that image is signed. */
export interface LatestPolicyImage {
  readonly name: string;
  readonly digest: string;
  readonly signed: boolean;
}

/**
 * Distinct images (name + digest) a tenant may store. A push of new content over the
 * quota first drops the tenant's oldest image no tag points at; only when every stored
 * image is tagged (one per policy name) is the push refused.
 */
export const MAX_IMAGES_PER_TENANT = 50;

/** A stored image with the signature pushed with it (a JWS over its digest), if any. */
export interface SignedPolicyImage {
  readonly image: PolicyImage;
  readonly signature: string | undefined;
}

/**
 * What a push did: `created` is false when the same content was already stored;
 * `quotaExceeded` when nothing was stored because every image slot is tagged;
 * `highestVersion` when nothing was stored because the push's signed version is not above
 * it, the highest the policy's signed pushes have reached.
 */
export type PushResult =
  | { readonly digest: string; readonly created: boolean; readonly quotaExceeded?: false }
  | { readonly digest: string; readonly created: false; readonly quotaExceeded: true }
  | { readonly digest: string; readonly created: false; readonly quotaExceeded?: false; readonly highestVersion: number };

/**
 * The policy registry: immutable, content-addressed images per tenant and policy name,
 * plus movable tags. An image row is never updated; pushing identical content again only
 * moves the tag.
 */
export interface PolicyImageRepository {
  /**
   * Stores an already validated image (idempotent) and points `latest` at it, atomically,
   * within {@link MAX_IMAGES_PER_TENANT}. A signature, when given, is kept with the image
   * (replacing an earlier one); a push without one leaves a stored signature in place.
   * With the `version` the signature was verified to sign, the push stores nothing unless
   * the version is above every version accepted for the policy name before (so an old
   * image cannot come back with its old signature), and then raises that mark.
   */
  push(tenantId: string, image: PolicyImage, signature?: string, version?: number): Promise<PushResult>;
  /** The highest signed version accepted for a policy name, or undefined before its first verified signed push. */
  signedVersion(tenantId: string, name: string): Promise<number | undefined>;
  /** The image a tag points at, with its signature when it has one, or undefined. */
  tagged(tenantId: string, name: string, tag?: string): Promise<SignedPolicyImage | undefined>;
  /** The digest a tag points at (cheap; no body), for conditional requests. */
  taggedDigest(tenantId: string, name: string, tag?: string): Promise<string | undefined>;
  versions(tenantId: string, name: string): Promise<PolicyImageVersion[]>;
  /** Every policy name of the tenant with the digest its `latest` tag points at, by name. */
  latest(tenantId: string): Promise<LatestPolicyImage[]>;
  /** A stored image by its digest (tagged or not), or undefined: what an edge reported it runs. */
  stored(tenantId: string, name: string, digest: string): Promise<PolicyImage | undefined>;
}

/** Builds the policy image repository over an open, migrated database. */
export function createPolicyImageRepository(db: SqlHandle, now: () => number): PolicyImageRepository {
  /** Makes room for one new image; false when every stored image is tagged. */
  async function makeRoom(tx: SqlExecutor, tenantId: string): Promise<boolean> {
    for (;;) {
      const count = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM policy_images WHERE tenant_id = ?', [tenantId]);
      if (Number(count?.n ?? 0) < MAX_IMAGES_PER_TENANT) return true;
      const oldest = await tx.get<{ name: string; digest: string }>(
        `SELECT i.name, i.digest FROM policy_images i
         WHERE i.tenant_id = ? AND NOT EXISTS (
           SELECT 1 FROM policy_tags t WHERE t.tenant_id = i.tenant_id AND t.name = i.name AND t.digest = i.digest)
         ORDER BY i.created_at, i.seq LIMIT 1`,
        [tenantId],
      );
      if (oldest === undefined) return false;
      await tx.run('DELETE FROM policy_images WHERE tenant_id = ? AND name = ? AND digest = ?', [tenantId, oldest.name, oldest.digest]);
    }
  }

  return {
    push(tenantId, image, signature, version) {
      return inTransaction(db, async (tx): Promise<PushResult> => {
        // Quota, eviction, the push sequence and the signed version are read-modify-write
        // over the tenant's images: the tenant's row is locked first (by writing it), so
        // concurrent pushes (two nodes at READ COMMITTED) run one after the other.
        await tx.run(LOCK_TENANT, [tenantId]);
        if (version !== undefined) {
          // Checked before anything changes, eviction included. The mark outlives the images.
          const mark = await tx.get<{ version: number }>('SELECT version FROM policy_versions WHERE tenant_id = ? AND name = ?', [tenantId, image.name]);
          const highest = mark === undefined ? 0 : Number(mark.version);
          if (version <= highest) return { digest: image.digest, created: false, highestVersion: highest };
        }
        const stored = await tx.get('SELECT 1 AS one FROM policy_images WHERE tenant_id = ? AND name = ? AND digest = ?', [
          tenantId,
          image.name,
          image.digest,
        ]);
        let created = false;
        if (stored === undefined) {
          if (!(await makeRoom(tx, tenantId))) return { digest: image.digest, created: false, quotaExceeded: true };
          const last = await tx.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM policy_images WHERE tenant_id = ?', [tenantId]);
          const inserted = await tx.run(
            `INSERT INTO policy_images (tenant_id, name, digest, body, created_at, seq) VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (tenant_id, name, digest) DO NOTHING`,
            [tenantId, image.name, image.digest, JSON.stringify(image), now(), Number(last?.seq ?? 0) + 1],
          );
          created = inserted.changes === 1;
        }
        if (signature !== undefined) {
          await tx.run(
            `INSERT INTO policy_signatures (tenant_id, name, digest, signature, version) VALUES (?, ?, ?, ?, ?)
             ON CONFLICT (tenant_id, name, digest) DO UPDATE SET signature = excluded.signature, version = excluded.version`,
            [tenantId, image.name, image.digest, signature, version ?? null],
          );
        }
        if (version !== undefined) {
          await tx.run(
            `INSERT INTO policy_versions (tenant_id, name, version) VALUES (?, ?, ?)
             ON CONFLICT (tenant_id, name) DO UPDATE SET version = excluded.version`,
            [tenantId, image.name, version],
          );
        }
        await tx.run(
          `INSERT INTO policy_tags (tenant_id, name, tag, digest) VALUES (?, ?, ?, ?)
           ON CONFLICT (tenant_id, name, tag) DO UPDATE SET digest = excluded.digest`,
          [tenantId, image.name, LATEST_TAG, image.digest],
        );
        return { digest: image.digest, created };
      });
    },
    async tagged(tenantId, name, tag = LATEST_TAG) {
      const row = await db.get<{ body: string; signature: string | null }>(
        `SELECT i.body, s.signature FROM policy_tags t JOIN policy_images i
           ON i.tenant_id = t.tenant_id AND i.name = t.name AND i.digest = t.digest
         LEFT JOIN policy_signatures s
           ON s.tenant_id = t.tenant_id AND s.name = t.name AND s.digest = t.digest
         WHERE t.tenant_id = ? AND t.name = ? AND t.tag = ?`,
        [tenantId, name, tag],
      );
      return row === undefined ? undefined : { image: JSON.parse(row.body) as PolicyImage, signature: row.signature ?? undefined };
    },
    async signedVersion(tenantId, name) {
      const row = await db.get<{ version: number }>('SELECT version FROM policy_versions WHERE tenant_id = ? AND name = ?', [tenantId, name]);
      return row === undefined ? undefined : Number(row.version);
    },
    async taggedDigest(tenantId, name, tag = LATEST_TAG) {
      const row = await db.get<{ digest: string }>('SELECT digest FROM policy_tags WHERE tenant_id = ? AND name = ? AND tag = ?', [tenantId, name, tag]);
      return row?.digest;
    },
    async versions(tenantId, name) {
      const rows = await db.all<{ digest: string; created_at: number; signature: string | null; version: number | null }>(
        `SELECT i.digest, i.created_at, s.signature, s.version FROM policy_images i
         LEFT JOIN policy_signatures s ON s.tenant_id = i.tenant_id AND s.name = i.name AND s.digest = i.digest
         WHERE i.tenant_id = ? AND i.name = ? ORDER BY i.created_at DESC, i.seq DESC`,
        [tenantId, name],
      );
      return rows.map((r) => ({
        digest: r.digest,
        createdAt: r.created_at,
        signed: r.signature !== null,
        signedVersion: r.version === null ? null : Number(r.version),
      }));
    },
    async latest(tenantId) {
      const rows = await db.all<{ name: string; digest: string; signature: string | null }>(
        `SELECT t.name, t.digest, s.signature FROM policy_tags t
         LEFT JOIN policy_signatures s ON s.tenant_id = t.tenant_id AND s.name = t.name AND s.digest = t.digest
         WHERE t.tenant_id = ? AND t.tag = ? ORDER BY t.name`,
        [tenantId, LATEST_TAG],
      );
      return rows.map((r) => ({ name: r.name, digest: r.digest, signed: r.signature !== null }));
    },
    async stored(tenantId, name, digest) {
      const row = await db.get<{ body: string }>('SELECT body FROM policy_images WHERE tenant_id = ? AND name = ? AND digest = ?', [tenantId, name, digest]);
      return row === undefined ? undefined : (JSON.parse(row.body) as PolicyImage);
    },
  };
}
