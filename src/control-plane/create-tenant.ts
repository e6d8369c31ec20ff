import type { DirectoryData } from '../directory';
import { inStoreTransaction, type ControlPlaneRepositories } from './control-plane-store';
import type { AccountKind } from './account';
import type { NewTenantKeys } from './tenant-repository';

/** What a new tenant starts with. */
export interface CreateTenantOptions {
  readonly name: string;
  /** The tenant's first directory (revision 1); typically the seed's roles and no users. */
  readonly directory: Omit<DirectoryData, 'revision'>;
  /** Default `organization`; a personal account needs an `owner`. */
  readonly kind?: AccountKind;
  /** IdP user id of the first member, made its owner. */
  readonly owner?: string;
}

/**
 * Creates a tenant, its two keys, its first directory, its owner and kind in one
 * transaction (a personal account without an owner is refused, and nothing is made). The keys
 * are returned once in plain text and only their hashes are kept, so the caller must
 * show or save them now.
 */
export function createTenant(store: ControlPlaneRepositories, options: CreateTenantOptions): Promise<NewTenantKeys> {
  return inStoreTransaction(store, async (tx) => {
    const keys = await tx.tenants.create(options.name);
    await tx.directory.initialize(keys.tenantId, options.directory);
    if (options.owner !== undefined) await tx.members.setMember(keys.tenantId, options.owner, 'owner');
    if (options.kind !== undefined) await tx.members.setKind(keys.tenantId, options.kind);
    return keys;
  });
}
