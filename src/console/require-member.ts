import type { RequestHandler } from 'express';
import { httpError, NotFoundError } from '../http';
import type { ControlPlaneStore, MemberRole } from '../control-plane';
import { consoleUser } from './require-console-user';

/** How much each role may do: every role may do what the ones below it may. */
const RANK: Readonly<Record<MemberRole, number>> = { viewer: 0, admin: 1, owner: 2 };

/** The caller's tenant and role, set by {@link requireMember}. */
export interface MemberContext {
  readonly tenantId: string;
  readonly userId: string;
  readonly role: MemberRole;
}

/**
 * Checks, on every call and server-side, that the signed-in user is a member of the tenant
 * named by `:tenantId` with at least role `least`. A tenant the user is not a member of is
 * the same 404 as one that does not exist, so the console never confirms another tenant's
 * id; a member whose role is too low gets 403 `forbidden`.
 */
export function requireMember(store: ControlPlaneStore, least: MemberRole): RequestHandler {
  return async function requireMemberMiddleware(req, res, next) {
    const userId = consoleUser(res.locals);
    const tenantId = String(req.params.tenantId);
    const role = await store.members.role(tenantId, userId);
    if (role === undefined) throw new NotFoundError('no such tenant among your accounts', 'tenant_not_found');
    if (RANK[role] < RANK[least]) throw httpError('forbidden', `this needs the ${least} role; yours is ${role}`);
    res.locals.member = { tenantId, userId, role } satisfies MemberContext;
    next();
  };
}

/** The context set by {@link requireMember}. */
export function memberOf(locals: Record<string, unknown>): MemberContext {
  const member = locals.member as MemberContext | undefined;
  if (member === undefined) throw new Error('requireMember must run before this handler');
  return member;
}
