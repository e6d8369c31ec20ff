import express, { type Router } from 'express';
import { parseParam } from '../http';
import { type ControlPlaneRepositories, type ControlPlaneStore, DIRECTORY_ROLE_PATTERN, DIRECTORY_USER_REF, directoryChangeAudit, recordAudit, resolveUser } from '../control-plane';
import { memberOf, requireMember } from './require-member';

/** The tenant's directory; every seeded tenant has one, so its absence is a server fault. */
async function snapshotOf(store: ControlPlaneRepositories, tenantId: string) {
  const data = await store.directory.snapshot(tenantId);
  if (!data) throw new Error(`tenant ${tenantId} has no directory`);
  return data;
}

/**
 * The console's Directory view under `…/tenants/:tenantId/directory` (docs/reference/api.md, Console
 * API): viewers read the users, roles, resource relations and revision; admins and owners
 * grant and revoke roles. A grant or revoke is the admin API's change (`role.grant` /
 * `role.revoke`: checked, next revision, logged for the edges) and its audit entry, in one
 * transaction; a change the directory refuses (unknown user or role) writes neither.
 */
export function consoleDirectoryRoutes(store: ControlPlaneStore): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');
  const admin = requireMember(store, 'admin');

  router.get('/', viewer, async function directory(_req, res) {
    const { revision, users, roles, resources } = await snapshotOf(store, memberOf(res.locals).tenantId);
    res.json({ revision, users, roles, resources });
  });

  for (const [method, op] of [['put', 'role.grant'], ['delete', 'role.revoke']] as const) {
    router[method]('/users/:userId/roles/:role', admin, async function changeRole(req, res) {
      const { tenantId, userId: actor } = memberOf(res.locals);
      const ref = parseParam(req.params.userId, DIRECTORY_USER_REF, 'user');
      const role = parseParam(req.params.role, DIRECTORY_ROLE_PATTERN, 'role');
      const applied = await store.transaction(async (tx) => {
        const userId = resolveUser(await snapshotOf(tx, tenantId), ref);
        const change = { op, user_id: userId, role } as const;
        const applied = await tx.directory.change(tenantId, change);
        const { action, target } = directoryChangeAudit(change);
        await recordAudit(tx.audit, tenantId, actor, action, target);
        return applied;
      });
      res.json({ revision: applied.rev });
    });
  }
  return router;
}
