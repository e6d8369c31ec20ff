import type { Database } from 'better-sqlite3';
import type { PolicyImage } from '../policy';

/** The tag edges follow; pushes move it. */
export const LATEST_TAG = 'latest';

/** One stored image version, newest first in listings. */
export interface PolicyImageVersion {
  readonly digest: string;
  readonly createdAt: number;
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
 * `quotaExceeded` when nothing was stored because every image slot is tagged.
 */
export type PushResult =
  | { readonly digest: string; readonly created: boolean; readonly quotaExceeded?: false }
  | { readonly digest: string; readonly created: false; readonly quotaExceeded: true };

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
   */
  push(tenantId: string, image: PolicyImage, signature?: string): PushResult;
  /** The image a tag points at, with its signature when it has one, or undefined. */
  tagged(tenantId: string, name: string, tag?: string): SignedPolicyImage | undefined;
  /** The digest a tag points at (cheap; no body), for conditional requests. */
  taggedDigest(tenantId: string, name: string, tag?: string): string | undefined;
  versions(tenantId: string, name: string): PolicyImageVersion[];
  /** Every policy name of the tenant with the digest its `latest` tag points at, by name. */
  latest(tenantId: string): { readonly name: string; readonly digest: string }[];
  /** A stored image by its digest (tagged or not), or undefined: what an edge reported it runs. */
  stored(tenantId: string, name: string, digest: string): PolicyImage | undefined;
}

/** Builds the policy image repository over an open, migrated database. */
export function createPolicyImageRepository(db: Database, now: () => number): PolicyImageRepository {
  const insertImage = db.prepare(
    'INSERT OR IGNORE INTO policy_images (tenant_id, name, digest, body, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  const upsertTag = db.prepare(
    `INSERT INTO policy_tags (tenant_id, name, tag, digest) VALUES (?, ?, ?, ?)
     ON CONFLICT (tenant_id, name, tag) DO UPDATE SET digest = excluded.digest`,
  );
  const selectDigest = db
    .prepare('SELECT digest FROM policy_tags WHERE tenant_id = ? AND name = ? AND tag = ?')
    .pluck();
  const selectTagged = db.prepare(
    `SELECT i.body, s.signature FROM policy_tags t JOIN policy_images i
       ON i.tenant_id = t.tenant_id AND i.name = t.name AND i.digest = t.digest
     LEFT JOIN policy_signatures s
       ON s.tenant_id = t.tenant_id AND s.name = t.name AND s.digest = t.digest
     WHERE t.tenant_id = ? AND t.name = ? AND t.tag = ?`,
  );
  const upsertSignature = db.prepare(
    `INSERT INTO policy_signatures (tenant_id, name, digest, signature) VALUES (?, ?, ?, ?)
     ON CONFLICT (tenant_id, name, digest) DO UPDATE SET signature = excluded.signature`,
  );
  const selectVersions = db.prepare(
    'SELECT digest, created_at FROM policy_images WHERE tenant_id = ? AND name = ? ORDER BY created_at DESC, rowid DESC',
  );

  const selectLatest = db.prepare('SELECT name, digest FROM policy_tags WHERE tenant_id = ? AND tag = ? ORDER BY name');
  const selectBody = db.prepare('SELECT body FROM policy_images WHERE tenant_id = ? AND name = ? AND digest = ?').pluck();
  const countImages = db.prepare('SELECT COUNT(*) FROM policy_images WHERE tenant_id = ?').pluck();
  const selectStored = db.prepare('SELECT 1 FROM policy_images WHERE tenant_id = ? AND name = ? AND digest = ?').pluck();
  const deleteOldestUntagged = db.prepare(
    `DELETE FROM policy_images WHERE rowid = (
       SELECT i.rowid FROM policy_images i
       WHERE i.tenant_id = ? AND NOT EXISTS (
         SELECT 1 FROM policy_tags t WHERE t.tenant_id = i.tenant_id AND t.name = i.name AND t.digest = i.digest)
       ORDER BY i.created_at, i.rowid LIMIT 1)`,
  );

  /** Makes room for one new image; false when every stored image is tagged. */
  function makeRoom(tenantId: string): boolean {
    while ((countImages.get(tenantId) as number) >= MAX_IMAGES_PER_TENANT) {
      if (deleteOldestUntagged.run(tenantId).changes === 0) return false;
    }
    return true;
  }

  const push = db.transaction((tenantId: string, image: PolicyImage, signature: string | undefined): PushResult => {
    const isNew = selectStored.get(tenantId, image.name, image.digest) === undefined;
    if (isNew && !makeRoom(tenantId)) return { digest: image.digest, created: false, quotaExceeded: true };
    const inserted = insertImage.run(tenantId, image.name, image.digest, JSON.stringify(image), now());
    if (signature !== undefined) upsertSignature.run(tenantId, image.name, image.digest, signature);
    upsertTag.run(tenantId, image.name, LATEST_TAG, image.digest);
    return { digest: image.digest, created: inserted.changes === 1 };
  });

  return {
    push: (tenantId, image, signature) => push.immediate(tenantId, image, signature),
    tagged(tenantId, name, tag = LATEST_TAG) {
      const row = selectTagged.get(tenantId, name, tag) as { body: string; signature: string | null } | undefined;
      return row === undefined ? undefined : { image: JSON.parse(row.body) as PolicyImage, signature: row.signature ?? undefined };
    },
    taggedDigest: (tenantId, name, tag = LATEST_TAG) => selectDigest.get(tenantId, name, tag) as string | undefined,
    versions: (tenantId, name) =>
      (selectVersions.all(tenantId, name) as { digest: string; created_at: number }[]).map((r) => ({
        digest: r.digest,
        createdAt: r.created_at,
      })),
    latest: (tenantId) => selectLatest.all(tenantId, LATEST_TAG) as { name: string; digest: string }[],
    stored(tenantId, name, digest) {
      const body = selectBody.get(tenantId, name, digest) as string | undefined;
      return body === undefined ? undefined : (JSON.parse(body) as PolicyImage);
    },
  };
}
