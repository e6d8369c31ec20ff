import type { DirectoryRepository } from './directory-repository';
import type { PolicyImageRepository } from './policy-image-repository';

/**
 * A committed change the tenant's edges should hear about: its central directory moved to a
 * new revision, or `latest` of one of its policies was pushed (docs/reference/api.md, "Push on
 * change").
 */
export type TenantChange =
  | { readonly tenantId: string; readonly kind: 'directory' }
  | { readonly tenantId: string; readonly kind: 'policy'; readonly policyName: string };

/** Receives each change once it is committed; it must not throw or wait. */
export type ChangeListener = (change: TenantChange) => void;

/** The directory repository, noting every applied change (a refused one throws first and is not noted). */
export function notingDirectory(directory: DirectoryRepository, note: ChangeListener): DirectoryRepository {
  return {
    ...directory,
    async change(tenantId, change) {
      const applied = await directory.change(tenantId, change);
      note({ tenantId, kind: 'directory' });
      return applied;
    },
  };
}

/** The policy registry, noting every push that moved `latest` (a quota or stale-version refusal stores nothing). */
export function notingImages(images: PolicyImageRepository, note: ChangeListener): PolicyImageRepository {
  return {
    ...images,
    async push(tenantId, image, signature, version) {
      const pushed = await images.push(tenantId, image, signature, version);
      if (!pushed.quotaExceeded && !('highestVersion' in pushed)) note({ tenantId, kind: 'policy', policyName: image.name });
      return pushed;
    },
  };
}
