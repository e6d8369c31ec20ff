import { Router, type Response } from 'express';
import { z } from 'zod';
import { directoryPropertiesSchema, identitiesSchema, RELATIONS, type DirectoryData, type Relation } from '../directory';
import { parseBody, parseParam } from '../http';
import { recordAdminKeyAudit } from './audit-repository';
import type { ControlPlaneStore } from './control-plane-store';
import type { DirectoryChangeInput } from './check-directory-change';
import { directoryChangeAudit } from './directory-change-audit';
import { authenticatedTenant } from './require-tenant-key';

/** A user named in a path: an id or an e-mail (shared with the console's directory routes). */
export const DIRECTORY_USER_REF = /^[^\s/]{1,128}$/;
/** A directory role id in a path. */
export const DIRECTORY_ROLE_PATTERN = /^[a-z_][a-z0-9_]{0,63}$/;
const RESOURCE = /^[A-Za-z0-9._-]{1,128}$/;
const RELATION = new RegExp(`^(${RELATIONS.join('|')})$`);

const userBodySchema = z
  .object({
    email: z.email(),
    name: z.string().min(1).max(200),
    roles: z.array(z.string()).max(64).default([]),
    identities: identitiesSchema.optional(),
    properties: directoryPropertiesSchema.optional(),
  })
  .strict();

/** A user named by id, or by e-mail when no id matches (handy from a shell). */
export function resolveUser(data: DirectoryData, ref: string): string {
  if (data.users.some((u) => u.id === ref)) return ref;
  return data.users.find((u) => u.email.toLowerCase() === ref.toLowerCase())?.id ?? ref;
}

/**
 * The central directory's admin API (admin key). Every write is one change: it is
 * checked, applied with the next revision and logged for the edges, written to the tenant's
 * audit log as the admin key's (in the same transaction), and answers `{revision}`. A change
 * the directory refuses writes neither. Users may be named by id or e-mail in the role and
 * relation routes.
 *
 *   curl -X PUT {relay_url}/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin \
 *     -H 'service-tenant-id: <TENANT_ID>' -H 'Authorization: basic <ADMIN_API_KEY>'
 */
export function adminDirectoryRoutes(store: ControlPlaneStore): Router {
  const router = Router();

  const snapshotOf = async (res: Response): Promise<DirectoryData> => {
    const data = await store.directory.snapshot(authenticatedTenant(res.locals));
    if (!data) throw new Error('tenant has no directory');
    return data;
  };
  const write = async (res: Response, change: DirectoryChangeInput) => {
    const tenantId = authenticatedTenant(res.locals);
    const applied = await store.transaction(async (tx) => {
      const done = await tx.directory.change(tenantId, change);
      const { action, target } = directoryChangeAudit(change);
      await recordAdminKeyAudit(tx.audit, tenantId, action, target);
      return done;
    });
    res.json({ revision: applied.rev });
  };
  const userParam = async (res: Response, value: string | string[] | undefined) => {
    const ref = parseParam(value, DIRECTORY_USER_REF, 'user');
    return resolveUser(await snapshotOf(res), ref);
  };

  router.get('/', async (_req, res) => {
    res.json(await snapshotOf(res));
  });

  router.put('/users/:id', async (req, res) => {
    const id = parseParam(req.params.id, DIRECTORY_USER_REF, 'user id');
    const body = parseBody(userBodySchema, req.body);
    // A PUT replaces the user: identities and properties left out are removed.
    const identities = body.identities === undefined ? {} : { identities: [...new Set(body.identities)] };
    const properties = body.properties === undefined ? {} : { properties: body.properties };
    await write(res, { op: 'user.put', user: { id, email: body.email, name: body.name, roles: [...new Set(body.roles)], ...identities, ...properties } });
  });

  router.delete('/users/:id', async (req, res) => {
    await write(res, { op: 'user.delete', user_id: await userParam(res, req.params.id) });
  });

  for (const [method, op] of [['put', 'role.grant'], ['delete', 'role.revoke']] as const) {
    router[method]('/users/:id/roles/:role', async (req, res) => {
      const role = parseParam(req.params.role, DIRECTORY_ROLE_PATTERN, 'role');
      await write(res, { op, user_id: await userParam(res, req.params.id), role });
    });
  }

  for (const [method, op] of [['put', 'relation.add'], ['delete', 'relation.remove']] as const) {
    router[method]('/resources/:resource/relations/:relation/:userId', async (req, res) => {
      const resourceId = parseParam(req.params.resource, RESOURCE, 'resource id');
      const relation = parseParam(req.params.relation, RELATION, `relation (one of ${RELATIONS.join(', ')})`) as Relation;
      await write(res, { op, resource_id: resourceId, relation, user_id: await userParam(res, req.params.userId) });
    });
  }

  return router;
}
