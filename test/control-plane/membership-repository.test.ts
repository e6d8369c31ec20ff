import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_MEMBERS_PER_TENANT,
  MembershipError,
  UnknownTenantError,
  createTenant,
  openControlPlaneStore,
  type ControlPlaneLocation,
  type ControlPlaneStore,
} from '../../src/control-plane';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';
import { seedDirectory } from './fixture';

describe.each(SQL_ENGINES)('membership repository on $name', (engine) => {
  let dir: string;
  let at: ControlPlaneLocation;
  let store: ControlPlaneStore;
  let clock: number;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-members-'));
    clock = 1_700_000_000_000;
    at = await engine.location(dir);
    store = await openControlPlaneStore(at, { now: () => (clock += 1) });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tenant = async (extra: Partial<Parameters<typeof createTenant>[1]> = {}) =>
    (await createTenant(store, { name: 'acme', directory: { roles: seedDirectory.roles, users: [], resources: [] }, ...extra })).tenantId;
  const problemOf = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (err) {
      if (err instanceof MembershipError) return err.problem;
      throw err;
    }
    throw new Error('expected a MembershipError');
  };
  const roles = async (tenantId: string) => Object.fromEntries((await store.members.members(tenantId)).map((m) => [m.userId, m.role]));

  it('makes new tenants organizations without members, and lists members and accounts with roles', async () => {
    const org = await tenant();
    expect(await store.members.kind(org)).toBe('organization');
    expect(await store.members.members(org)).toEqual([]);
    expect(await store.members.setMember(org, 'rick', 'owner')).toBe(true);
    expect(await store.members.setMember(org, 'beth', 'viewer')).toBe(true);
    expect(await store.members.setMember(org, 'beth', 'viewer')).toBe(false);
    expect(await store.members.members(org)).toEqual([
      { userId: 'rick', role: 'owner', createdAt: expect.any(Number) },
      { userId: 'beth', role: 'viewer', createdAt: expect.any(Number) },
    ]);
    expect(await store.members.role(org, 'beth')).toBe('viewer');
    expect(await store.members.role(org, 'morty')).toBeUndefined();
    const mine = await tenant({ name: 'Rick (personal)', kind: 'personal', owner: 'rick' });
    const beta = await tenant({ name: 'Beta', owner: 'rick' });
    // Personal account first, then organizations by name, whatever the order of creation.
    expect(await store.members.accountsOf('rick')).toEqual([
      { tenantId: mine, name: 'Rick (personal)', kind: 'personal', role: 'owner' },
      { tenantId: org, name: 'acme', kind: 'organization', role: 'owner' },
      { tenantId: beta, name: 'Beta', kind: 'organization', role: 'owner' },
    ]);
    expect(await store.members.accountsOf('nobody')).toEqual([]);
  });

  it('keeps at least one owner in an organization: the last one can be neither removed nor demoted', async () => {
    const org = await tenant({ owner: 'rick' });
    await store.members.setMember(org, 'morty', 'admin');
    expect(await problemOf(() => store.members.removeMember(org, 'rick'))).toBe('last_owner');
    expect(await problemOf(() => store.members.setMember(org, 'rick', 'admin'))).toBe('last_owner');
    // With a second owner the first may go.
    await store.members.setMember(org, 'morty', 'owner');
    expect(await store.members.removeMember(org, 'rick')).toBe(true);
    expect(await roles(org)).toEqual({ morty: 'owner' });
    // Even alone, the last owner stays.
    expect(await problemOf(() => store.members.removeMember(org, 'morty'))).toBe('last_owner');
    expect(await store.members.removeMember(org, 'nobody')).toBe(false);
  });

  it("refuses an organization's first member unless it is an owner", async () => {
    const org = await tenant();
    expect(await problemOf(() => store.members.setMember(org, 'beth', 'viewer'))).toBe('last_owner');
    expect(await store.members.members(org)).toEqual([]);
  });

  it('gives a personal account exactly one member, its owner', async () => {
    expect(await problemOf(() => tenant({ kind: 'personal' }))).toBe('personal_account');
    expect(await store.tenants.list()).toEqual([]); // the whole creation was rolled back
    const mine = await tenant({ kind: 'personal', owner: 'rick' });
    expect(await store.members.kind(mine)).toBe('personal');
    expect(await problemOf(() => store.members.setMember(mine, 'morty', 'viewer'))).toBe('personal_account');
    expect(await problemOf(() => store.members.setMember(mine, 'rick', 'admin'))).toBe('personal_account');
    expect(await problemOf(() => store.members.removeMember(mine, 'rick'))).toBe('personal_account');
    expect(await store.members.setMember(mine, 'rick', 'owner')).toBe(false);
    expect(await roles(mine)).toEqual({ rick: 'owner' });
  });

  it('turns an organization personal only with exactly one member who is an owner', async () => {
    const org = await tenant({ owner: 'rick' });
    await store.members.setMember(org, 'beth', 'viewer');
    expect(await problemOf(() => store.members.setKind(org, 'personal'))).toBe('personal_account');
    expect(await store.members.kind(org)).toBe('organization');
    await store.members.removeMember(org, 'beth');
    await store.members.setKind(org, 'personal');
    expect(await store.members.kind(org)).toBe('personal');
    await store.members.setKind(org, 'organization');
    await store.members.setMember(org, 'beth', 'viewer');
    expect(await roles(org)).toEqual({ rick: 'owner', beth: 'viewer' });
    expect(await problemOf(async () => store.members.setKind(await tenant(), 'personal'))).toBe('personal_account');
  });

  it(`caps a tenant at ${MAX_MEMBERS_PER_TENANT} members`, async () => {
    const org = await tenant({ owner: 'owner' });
    const raw = await openLocation(at);
    await raw.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
       INSERT INTO tenant_members (tenant_id, user_id, role, created_at) SELECT ?, 'user-' || i, 'viewer', 0 FROM n`,
      [MAX_MEMBERS_PER_TENANT, org],
    );
    await raw.close();
    expect(await problemOf(() => store.members.setMember(org, 'one-too-many', 'viewer'))).toBe('too_many_members');
    expect(await store.members.setMember(org, 'user-1', 'admin')).toBe(true);
  });

  it('lists accounts personal first, then organizations by name ignoring ASCII case, in byte order on every engine', async () => {
    const names = ['beta', 'Alpha', 'alpha-2', 'alpha_1', 'alpha 3', 'Zed', '_under', 'émile'];
    for (const name of names) await createTenant(store, { name, directory: { roles: seedDirectory.roles, users: [], resources: [] }, owner: 'rick' });
    await createTenant(store, { name: 'Rick', directory: { roles: seedDirectory.roles, users: [], resources: [] }, kind: 'personal', owner: 'rick' });
    const byLowerBytes = [...names].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0));
    expect((await store.members.accountsOf('rick')).map((a) => a.name)).toEqual(['Rick', ...byLowerBytes]);
  });

  it('names an unknown tenant', async () => {
    expect(await store.members.kind('nope')).toBeUndefined();
    for (const work of [
      () => store.members.members('nope'),
      () => store.members.setMember('nope', 'rick', 'owner'),
      () => store.members.removeMember('nope', 'rick'),
      () => store.members.setKind('nope', 'organization'),
    ]) {
      await expect(work()).rejects.toThrow(UnknownTenantError);
    }
  });

  it('drops members with their tenant, and keeps them across a reopen', async () => {
    const org = await tenant({ owner: 'rick' });
    await store.close();
    store = await openControlPlaneStore(at);
    expect(await roles(org)).toEqual({ rick: 'owner' });
    const raw = await openLocation(at);
    await raw.run('DELETE FROM tenants WHERE id = ?', [org]);
    await raw.close();
    expect(await store.members.accountsOf('rick')).toEqual([]);
  });
});
