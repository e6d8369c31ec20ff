import { readDemoTenantFile } from '../config';
import type { DirectoryData } from '../directory';
import type { MemberRole } from './account';
import { type ControlPlaneRepositories, type ControlPlaneStore } from './control-plane-store';
import { createTenant } from './create-tenant';

/** The demo organization's members, by e-mail in the Citadel directory. */
export const DEMO_MEMBERS: Readonly<Record<string, MemberRole>> = {
  'rick@the-citadel.com': 'owner',
  'morty@the-citadel.com': 'admin',
  'beth@the-smiths.com': 'viewer',
};

/**
 * Makes the demo tenant an organization with {@link DEMO_MEMBERS} (when it has no members
 * yet) and gives every directory user without one a personal account. Runs inside the
 * caller's transaction; members are IdP user ids, which are the directory's user ids.
 * Returns true when it changed anything, so a second run is a no-op.
 */
export async function seedDemoAccounts(store: ControlPlaneRepositories, demoTenantId: string, directory: DirectoryData): Promise<boolean> {
  let changed = false;
  if ((await store.members.members(demoTenantId)).length === 0) {
    // Owner first: an organization with members always has an owner.
    const ordered = directory.users
      .filter((u) => DEMO_MEMBERS[u.email] !== undefined)
      .sort((a, b) => Number(DEMO_MEMBERS[b.email] === 'owner') - Number(DEMO_MEMBERS[a.email] === 'owner'));
    for (const user of ordered) await store.members.setMember(demoTenantId, user.id, DEMO_MEMBERS[user.email]!);
    changed = ordered.length > 0;
  }
  for (const user of directory.users) {
    if ((await store.members.accountsOf(user.id)).some((a) => a.kind === 'personal' && a.role === 'owner')) continue;
    // A personal account starts like a CLI-made tenant: the seed's roles, no users. Its keys
    // are not kept; the owner rotates one when needed.
    await createTenant(store, {
      name: `${user.name} (personal)`,
      directory: { roles: directory.roles, users: [], resources: [] },
      kind: 'personal',
      owner: user.id,
    });
    changed = true;
  }
  return changed;
}

/**
 * A data directory seeded before accounts existed: gives the demo tenant (named by
 * `demo-tenant.json`) its members and the demo users their personal accounts, in one
 * transaction. Does nothing when the file is absent, names a tenant the store lacks, or
 * everything is there already. Returns true when it added anything.
 */
export async function ensureDemoAccounts(store: ControlPlaneStore, dataDir: string, directory: DirectoryData): Promise<boolean> {
  let tenantId: string;
  try {
    tenantId = readDemoTenantFile(dataDir).tenant_id;
  } catch {
    return false;
  }
  if (!(await store.tenants.exists(tenantId))) return false;
  return store.exclusiveTransaction((tx) => seedDemoAccounts(tx, tenantId, directory));
}
