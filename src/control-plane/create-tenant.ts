import type { DirectoryData } from '../directory';
import type { ControlPlaneStore } from './control-plane-store';
import type { NewTenantKeys } from './tenant-repository';

/** What a new tenant starts with. */
export interface CreateTenantOptions {
  readonly name: string;
  /** The tenant's first directory (revision 1); typically the seed's roles and no users. */
  readonly directory: Omit<DirectoryData, 'revision'>;
}

/**
 * Creates a tenant, its two keys and its first directory in one transaction. The keys
 * are returned once in plain text and only their hashes are kept, so the caller must
 * show or save them now.
 */
export function createTenant(store: ControlPlaneStore, options: CreateTenantOptions): NewTenantKeys {
  const run = store.db.transaction(() => {
    const keys = store.tenants.create(options.name);
    store.directory.initialize(keys.tenantId, options.directory);
    return keys;
  });
  return run.immediate();
}
