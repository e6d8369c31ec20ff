import type { Database } from 'better-sqlite3';
import type { PolicyImage } from '../policy';

/** The tag edges follow; pushes move it. */
export const LATEST_TAG = 'latest';

/** One stored image version, newest first in listings. */
export interface PolicyImageVersion {
  readonly digest: string;
  readonly createdAt: number;
}

/** What a push did: `created` is false when the same content was already stored. */
export interface PushResult {
  readonly digest: string;
  readonly created: boolean;
}

/**
 * The policy registry: immutable, content-addressed images per tenant and policy name,
 * plus movable tags. An image row is never updated; pushing identical content again only
 * moves the tag.
 */
export interface PolicyImageRepository {
  /** Stores an already validated image (idempotent) and points `latest` at it, atomically. */
  push(tenantId: string, image: PolicyImage): PushResult;
  /** The image a tag points at, or undefined. */
  tagged(tenantId: string, name: string, tag?: string): PolicyImage | undefined;
  /** The digest a tag points at (cheap; no body), for conditional requests. */
  taggedDigest(tenantId: string, name: string, tag?: string): string | undefined;
  versions(tenantId: string, name: string): PolicyImageVersion[];
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
  const selectTagged = db
    .prepare(
      `SELECT i.body FROM policy_tags t JOIN policy_images i
         ON i.tenant_id = t.tenant_id AND i.name = t.name AND i.digest = t.digest
       WHERE t.tenant_id = ? AND t.name = ? AND t.tag = ?`,
    )
    .pluck();
  const selectVersions = db.prepare(
    'SELECT digest, created_at FROM policy_images WHERE tenant_id = ? AND name = ? ORDER BY created_at DESC, rowid DESC',
  );

  const push = db.transaction((tenantId: string, image: PolicyImage): PushResult => {
    const inserted = insertImage.run(tenantId, image.name, image.digest, JSON.stringify(image), now());
    upsertTag.run(tenantId, image.name, LATEST_TAG, image.digest);
    return { digest: image.digest, created: inserted.changes === 1 };
  });

  return {
    push: (tenantId, image) => push.immediate(tenantId, image),
    tagged(tenantId, name, tag = LATEST_TAG) {
      const body = selectTagged.get(tenantId, name, tag) as string | undefined;
      return body === undefined ? undefined : (JSON.parse(body) as PolicyImage);
    },
    taggedDigest: (tenantId, name, tag = LATEST_TAG) => selectDigest.get(tenantId, name, tag) as string | undefined,
    versions: (tenantId, name) =>
      (selectVersions.all(tenantId, name) as { digest: string; created_at: number }[]).map((r) => ({
        digest: r.digest,
        createdAt: r.created_at,
      })),
  };
}
