import express, { type Router } from 'express';
import { parseParam } from '../http';
import { DIRECTORY_ROLE_PATTERN, DIRECTORY_USER_REF, resolveUser } from './admin-directory-routes';
import type { Audit } from './console-member-routes';
import type { ControlPlaneStore } from './control-plane-store';
import { memberOf, requireMember } from './require-member';

/** The tenant's directory; every seeded tenant has one, so its absence is a server fault. */
function snapshotOf(store: ControlPlaneStore, tenantId: string) {
  const data = store.directory.snapshot(tenantId);
  if (!data) throw new Error(`tenant ${tenantId} has no directory`);
  return data;
}

/**
 * The console's Directory view under `…/tenants/:tenantId/directory` (docs/api.md, Console
 * API): viewers read the users, roles, resource relations and revision; admins and owners
 * grant and revoke roles. A grant or revoke is the admin API's change (`role.grant` /
 * `role.revoke`: checked, next revision, logged for the edges) and its audit entry, in one
 * transaction; a change the directory refuses (unknown user or role) writes neither.
 */
export function consoleDirectoryRoutes(store: ControlPlaneStore, audit: Audit): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');
  const admin = requireMember(store, 'admin');

  router.get('/', viewer, function directory(_req, res) {
    const { revision, users, roles, resources } = snapshotOf(store, memberOf(res.locals).tenantId);
    res.json({ revision, users, roles, resources });
  });

  for (const [method, op] of [['put', 'role.grant'], ['delete', 'role.revoke']] as const) {
    router[method]('/users/:userId/roles/:role', admin, function changeRole(req, res) {
      const { tenantId, userId: actor } = memberOf(res.locals);
      const ref = parseParam(req.params.userId, DIRECTORY_USER_REF, 'user');
      const role = parseParam(req.params.role, DIRECTORY_ROLE_PATTERN, 'role');
      const applied = store.db.transaction(() => {
        const userId = resolveUser(snapshotOf(store, tenantId), ref);
        const change = store.directory.change(tenantId, { op, user_id: userId, role });
        audit(tenantId, actor, `directory.${op}.${role}`, userId);
        return change;
      }).immediate();
      res.json({ revision: applied.rev });
    });
  }
  return router;
}
