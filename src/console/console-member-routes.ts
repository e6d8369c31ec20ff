import express, { type Router } from 'express';
import { z } from 'zod';
import { httpError, NotFoundError, parseBody, parseParam } from '../http';
import { type ControlPlaneRepositories, type ControlPlaneStore, MEMBER_ROLES, type MemberRole, MembershipError, recordAudit, USER_ID_PATTERN } from '../control-plane';
import { memberOf, requireMember, type MemberContext } from './require-member';

/** `PUT …/members/:userId`: the member's new role. */
export const consoleMemberSchema = z.strictObject({ role: z.enum(MEMBER_ROLES) });

/** A membership refusal is the caller's conflict with the account's invariants: 409 naming it. */
function asConflict(err: unknown): unknown {
  return err instanceof MembershipError ? httpError(err.problem, err.message) : err;
}

/**
 * Owners manage every member; admins manage admins and viewers but never the owner role:
 * they can neither make an owner nor change or remove one (else an admin could take the
 * account from its owners). Checked against the stored roles inside the write transaction,
 * after the tenant's row is locked, so a concurrent change cannot slip in between.
 */
async function checkOwnerRole(tx: ControlPlaneRepositories, caller: MemberContext, userId: string, newRole: MemberRole | undefined): Promise<void> {
  await tx.tenants.lock(caller.tenantId);
  if (caller.role === 'owner') return;
  if (newRole === 'owner' || (await tx.members.role(caller.tenantId, userId)) === 'owner') {
    throw httpError('forbidden', 'only owners grant, change or remove the owner role');
  }
}

/**
 * The console's member management under `…/tenants/:tenantId/members` (docs/reference/api.md, Console
 * API): owners and admins (see {@link checkOwnerRole}). Each change and its audit entry are
 * written in one transaction; a change the account's invariants refuse is a 409 and writes
 * nothing.
 */
export function consoleMemberRoutes(store: ControlPlaneStore): Router {
  const router = express.Router({ mergeParams: true });
  const admin = requireMember(store, 'admin');

  router.put('/:userId', admin, async function setMember(req, res) {
    const caller = memberOf(res.locals);
    const { tenantId, userId: actor } = caller;
    const userId = parseParam(req.params.userId, USER_ID_PATTERN, 'user id');
    const { role } = parseBody(consoleMemberSchema, req.body);
    await store.transaction(async (tx) => {
      await checkOwnerRole(tx, caller, userId, role);
      let changed: boolean;
      try {
        changed = await tx.members.setMember(tenantId, userId, role);
      } catch (err) {
        throw asConflict(err);
      }
      if (changed) await recordAudit(tx.audit, tenantId, actor, `member.set.${role}`, userId);
    });
    res.json({ user_id: userId, role });
  });

  router.delete('/:userId', admin, async function removeMember(req, res) {
    const caller = memberOf(res.locals);
    const { tenantId, userId: actor } = caller;
    const userId = parseParam(req.params.userId, USER_ID_PATTERN, 'user id');
    await store.transaction(async (tx) => {
      await checkOwnerRole(tx, caller, userId, undefined);
      let removed: boolean;
      try {
        removed = await tx.members.removeMember(tenantId, userId);
      } catch (err) {
        throw asConflict(err);
      }
      if (!removed) throw new NotFoundError('no such member', 'member_not_found');
      await recordAudit(tx.audit, tenantId, actor, 'member.remove', userId);
    });
    res.status(204).end();
  });
  return router;
}
