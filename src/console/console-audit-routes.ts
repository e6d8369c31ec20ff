import express, { type Router } from 'express';
import { BadRequestError } from '../http';
import { type AuditEntry, type ControlPlaneStore, directoryNames, type NameOf } from '../control-plane';
import { memberOf, requireMember } from './require-member';

/** Actions whose target is a directory user (a member is one too), and those whose target is a connection. */
const USER_TARGETS = /^(member|directory)\./;
const CONNECTION_TARGETS = /^connection\./;

/**
 * An audit entry as the API shows it, with names beside the ids: the actor's (a console user
 * the tenant's directory knows; the admin key has none) and the target's (a directory user's
 * name and e-mail, or a connection's label). Nulls where there is no name.
 */
function auditView(e: AuditEntry, nameOf: NameOf, labels: ReadonlyMap<string, string | null>) {
  const actor = e.actorKind === 'user' ? nameOf(e.actor) : undefined;
  const target = e.target !== null && USER_TARGETS.test(e.action) ? nameOf(e.target) : undefined;
  const label = e.target !== null && CONNECTION_TARGETS.test(e.action) ? (labels.get(e.target) ?? null) : null;
  return {
    id: e.id,
    actor: e.actor,
    actor_kind: e.actorKind,
    actor_name: actor?.name ?? null,
    actor_email: actor?.email ?? null,
    action: e.action,
    target: e.target,
    target_name: target?.name ?? label,
    target_email: target?.email ?? null,
    outcome: e.outcome,
    at: new Date(e.at).toISOString(),
  };
}

/**
 * The console's Audit log view under `…/tenants/:tenantId/audit` (docs/reference/api.md, Console API):
 * every member reads the tenant's log, newest first, a page at a time (`before=<entry id>`),
 * the names looked up in this tenant's own directory and connections only.
 */
export function consoleAuditRoutes(store: ControlPlaneStore): Router {
  const router = express.Router({ mergeParams: true });
  const viewer = requireMember(store, 'viewer');

  router.get('/', viewer, async function auditLog(req, res) {
    const { before } = req.query;
    if (before !== undefined && (typeof before !== 'string' || !/^[1-9][0-9]{0,15}$/.test(before))) {
      throw new BadRequestError('before must be an entry id');
    }
    const { tenantId } = memberOf(res.locals);
    const [entries, directory, tenant] = await Promise.all([
      store.audit.list(tenantId, before === undefined ? undefined : Number(before)),
      store.directory.snapshot(tenantId),
      store.tenants.get(tenantId),
    ]);
    const nameOf = directoryNames(directory);
    const labels = new Map((tenant?.connections ?? []).map((c) => [c.connectionId, c.label]));
    res.json({ entries: entries.map((e) => auditView(e, nameOf, labels)) });
  });
  return router;
}
