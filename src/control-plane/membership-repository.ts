import type { SqlExecutor } from '../sql';
import { inTransaction, type SqlHandle } from './in-transaction';
import type { AccountKind, MemberRole } from './account';
import { LOCK_TENANT } from './tenant-repository';
import { UnknownTenantError } from './unknown-tenant-error';

/** Members of one tenant at most; more are refused (docs/reference/limits.md). */
export const MAX_MEMBERS_PER_TENANT = 1000;

/** One member of a tenant: an IdP user id (`sub`) and a role. */
export interface Member {
  readonly userId: string;
  readonly role: MemberRole;
  readonly createdAt: number;
}

/** A tenant as one of its members sees it: for the console's tenant switcher. */
export interface Account {
  readonly tenantId: string;
  readonly name: string;
  readonly kind: AccountKind;
  readonly role: MemberRole;
}

/** Why a membership change was refused: it would break an account's invariant. */
export type MembershipProblem = 'last_owner' | 'personal_account' | 'too_many_members';

/** A membership change the account's invariants forbid; the message says which. */
export class MembershipError extends Error {
  constructor(
    readonly problem: MembershipProblem,
    message: string,
  ) {
    super(message);
    this.name = 'MembershipError';
  }
}

/**
 * Tenants' kinds and members. Every change keeps two invariants: an organization that has
 * members has at least one owner (its last owner can be neither removed nor demoted), and a
 * personal account has exactly one member, its owner.
 */
export interface MembershipRepository {
  /** Undefined for an unknown tenant. */
  kind(tenantId: string): Promise<AccountKind | undefined>;
  /** Makes a tenant personal (only with exactly one member, an owner) or an organization. */
  setKind(tenantId: string, kind: AccountKind): Promise<void>;
  /** Members in order of joining. */
  members(tenantId: string): Promise<Member[]>;
  /** The user's role in the tenant; undefined when not a member (or no such tenant). */
  role(tenantId: string, userId: string): Promise<MemberRole | undefined>;
  /** Every tenant the user is a member of: personal accounts first, then organizations by name (case-insensitive). */
  accountsOf(userId: string): Promise<Account[]>;
  /** Adds a member or changes a member's role. Returns true when something changed. */
  setMember(tenantId: string, userId: string, role: MemberRole): Promise<boolean>;
  /** Removes a member. Returns false when the user was not a member. */
  removeMember(tenantId: string, userId: string): Promise<boolean>;
}

interface MemberRow {
  user_id: string;
  role: MemberRole;
  created_at: number;
}

/** Builds the membership repository over an open, migrated database. */
export function createMembershipRepository(db: SqlHandle, now: () => number): MembershipRepository {
  const selectKind = async (sql: SqlExecutor, tenantId: string) =>
    (await sql.get<{ kind: AccountKind }>('SELECT kind FROM tenants WHERE id = ?', [tenantId]))?.kind;
  const membersOf = async (sql: SqlExecutor, tenantId: string): Promise<Member[]> =>
    (
      await sql.all<MemberRow>('SELECT user_id, role, created_at FROM tenant_members WHERE tenant_id = ? ORDER BY created_at, user_id', [
        tenantId,
      ])
    ).map((m) => ({ userId: m.user_id, role: m.role, createdAt: m.created_at }));

  /**
   * Locks the tenant's row by writing it, then reads its kind. Every membership change
   * starts here, so two concurrent changes (the console and the CLI, or two nodes at READ
   * COMMITTED) run one after the other and cannot both remove "another" owner.
   */
  const lockTenant = async (tx: SqlExecutor, tenantId: string): Promise<AccountKind> => {
    const { changes } = await tx.run(LOCK_TENANT, [tenantId]);
    const kind = changes === 0 ? undefined : await selectKind(tx, tenantId);
    if (kind === undefined) throw new UnknownTenantError(tenantId);
    return kind;
  };

  /** Checks the tenant's members as they would be after a change; throws what it breaks. */
  const checkInvariants = (kind: AccountKind, before: readonly Member[], after: readonly Member[]) => {
    const owners = after.filter((m) => m.role === 'owner').length;
    if (kind === 'personal' && (after.length !== 1 || owners !== 1)) {
      throw new MembershipError('personal_account', 'a personal account has exactly one member, its owner');
    }
    if (owners === 0 && (after.length > 0 || before.some((m) => m.role === 'owner'))) {
      throw new MembershipError('last_owner', 'an organization keeps at least one owner');
    }
    if (after.length > MAX_MEMBERS_PER_TENANT) {
      throw new MembershipError('too_many_members', `a tenant has at most ${MAX_MEMBERS_PER_TENANT} members`);
    }
  };

  // Each change reads, checks and writes in one transaction under the tenant's row lock.
  const change = (tenantId: string, next: (members: Member[]) => Member[], write: (tx: SqlExecutor) => Promise<unknown>) =>
    inTransaction(db, async (tx) => {
      const kind = await lockTenant(tx, tenantId);
      const before = await membersOf(tx, tenantId);
      const after = next(before);
      if (sameMembers(before, after)) return false;
      checkInvariants(kind, before, after);
      await write(tx);
      return true;
    });

  return {
    kind: (tenantId) => selectKind(db, tenantId),
    setKind(tenantId, kind) {
      return inTransaction(db, async (tx) => {
        await lockTenant(tx, tenantId);
        const members = await membersOf(tx, tenantId);
        checkInvariants(kind, members, members);
        await tx.run('UPDATE tenants SET kind = ? WHERE id = ?', [kind, tenantId]);
      });
    },
    async members(tenantId) {
      if ((await selectKind(db, tenantId)) === undefined) throw new UnknownTenantError(tenantId);
      return membersOf(db, tenantId);
    },
    async role(tenantId, userId) {
      const row = await db.get<{ role: MemberRole }>('SELECT role FROM tenant_members WHERE tenant_id = ? AND user_id = ?', [tenantId, userId]);
      return row?.role;
    },
    async accountsOf(userId) {
      const rows = await db.all<{ id: string; name: string; kind: AccountKind; role: MemberRole }>(
        `SELECT t.id, t.name, t.kind, m.role FROM tenant_members m JOIN tenants t ON t.id = m.tenant_id
         WHERE m.user_id = ? ORDER BY CASE WHEN t.kind = 'organization' THEN 1 ELSE 0 END, LOWER(t.name), t.id`,
        [userId],
      );
      return rows.map((a) => ({ tenantId: a.id, name: a.name, kind: a.kind, role: a.role }));
    },
    setMember(tenantId, userId, role) {
      const at = now();
      return change(
        tenantId,
        (members) =>
          members.some((m) => m.userId === userId)
            ? members.map((m) => (m.userId === userId ? { ...m, role } : m))
            : [...members, { userId, role, createdAt: at }],
        (tx) =>
          tx.run(
            `INSERT INTO tenant_members (tenant_id, user_id, role, created_at) VALUES (?, ?, ?, ?)
             ON CONFLICT (tenant_id, user_id) DO UPDATE SET role = excluded.role`,
            [tenantId, userId, role, at],
          ),
      );
    },
    removeMember(tenantId, userId) {
      return change(
        tenantId,
        (members) => members.filter((m) => m.userId !== userId),
        (tx) => tx.run('DELETE FROM tenant_members WHERE tenant_id = ? AND user_id = ?', [tenantId, userId]),
      );
    },
  };
}

/** Same users with the same roles. */
function sameMembers(a: readonly Member[], b: readonly Member[]): boolean {
  return a.length === b.length && a.every((m) => b.some((n) => n.userId === m.userId && n.role === m.role));
}
