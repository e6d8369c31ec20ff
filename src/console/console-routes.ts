import express, { type Router } from 'express';
import { z } from 'zod';
import { HttpError, parseBody, parseParam, jsonBody, noBody, refuseWriteQuery } from '../http';
import { COMMANDS, INSTANCE_ID_PATTERN } from '../relay-protocol';
import type { Relay } from '../relay';
import type { RelayBroadcast } from '../relay-broadcast';
import { type ControlPlaneStore, type DemoTenantFileLocation, directoryNames, recordAudit, recordRotatedDemoKey } from '../control-plane';
import { consoleAuditRoutes } from './console-audit-routes';
import { openDecisionRepository } from '../decision-store';
import { consoleDecisionRoutes } from './console-decision-routes';
import { consoleConnectionRoutes } from './console-connection-routes';
import { consoleDirectoryRoutes } from './console-directory-routes';
import { consoleMemberRoutes } from './console-member-routes';
import { consolePageRouter, type ConsolePage } from './console-page';
import { consolePolicyRoutes } from './console-policy-routes';
import { consoleUser, requireConsoleUser, type ConsoleAuthOptions } from './require-console-user';
import { memberOf, requireMember } from './require-member';

/** Where the console's JSON API is mounted. */
export const CONSOLE_API_PATH = '/console/api';
/** Console request bodies are a few dozen bytes (413 beyond). */
export const CONSOLE_BODY_LIMIT = 4 * 1024;

/** `POST …/authorizers/:instanceId/commands`: one of the relay's two commands (docs/service-interface.md §1 item 3). */
export const consoleCommandSchema = z.strictObject({ command: z.enum(COMMANDS) });

/** Dependencies of {@link createConsoleRouter}. */
export interface ConsoleDeps {
  readonly store: ControlPlaneStore;
  /**
   * The relay's exec and registrations, and its broadcast plug-in's broadcast (src/relay-broadcast): the console takes
   * exactly the API's path (§4.2, §4.3, "Broadcast"); and its `tryDecision`, for the Decisions view's "Try a decision" (absent: 404 there).
   */
  readonly relay: Pick<Relay, 'exec' | 'registrations'> & Pick<RelayBroadcast, 'broadcast'> & Partial<Pick<Relay, 'tryDecision'>>;
  readonly auth: ConsoleAuthOptions;
  /** The console's web page under `/console/`; the API alone when absent. */
  readonly page?: ConsolePage;
  /** The demo tenant file this control plane seeded: a rotation of that tenant's key is written into it. */
  readonly demoTenantFile?: DemoTenantFileLocation;
}

/**
 * The control-plane console's JSON API (docs/reference/api.md, Console API) under `/console/api`. Every
 * route needs the console's access token ({@link requireConsoleUser}); every tenant route
 * checks membership and role on the call itself ({@link requireMember}): viewers read, admins
 * also send commands, rotate the Discovery API key and grant or revoke directory roles, owners
 * also manage members. Every change, refused by the edge or not, is written to the tenant's
 * audit log.
 */
export function createConsoleRouter(deps: ConsoleDeps): Router {
  const { store, relay } = deps;
  const api = express.Router();
  const viewer = requireMember(store, 'viewer');
  const admin = requireMember(store, 'admin');

  api.get('/me', async function me(_req, res) {
    const userId = consoleUser(res.locals);
    const accounts = (await store.members.accountsOf(userId)).map((a) => ({ tenant_id: a.tenantId, name: a.name, kind: a.kind, role: a.role }));
    res.json({ user: { id: userId }, accounts });
  });

  api.get('/tenants/:tenantId', viewer, async function tenant(_req, res) {
    const { tenantId, role } = memberOf(res.locals);
    const summary = (await store.tenants.get(tenantId))!;
    const tenant = { id: summary.id, name: summary.name, kind: summary.kind, role };
    if (summary.kind !== 'organization') {
      res.json(tenant);
      return;
    }
    // Each member's name and e-mail from this tenant's own directory; null where it lacks them.
    const nameOf = directoryNames(await store.directory.snapshot(tenantId));
    const members = (await store.members.members(tenantId)).map((m) => {
      const known = nameOf(m.userId);
      return { user_id: m.userId, role: m.role, since: new Date(m.createdAt).toISOString(), name: known?.name ?? null, email: known?.email ?? null };
    });
    res.json({ ...tenant, members });
  });

  api.get('/tenants/:tenantId/authorizers', viewer, async function authorizers(req, res) {
    res.json(await relay.registrations(memberOf(res.locals).tenantId, req.query as Record<string, unknown>));
  });

  api.post('/tenants/:tenantId/authorizers/:instanceId/commands', admin, async function command(req, res) {
    const { tenantId, userId } = memberOf(res.locals);
    const instanceId = parseParam(req.params.instanceId, INSTANCE_ID_PATTERN, 'instance id');
    const { command } = parseBody(consoleCommandSchema, req.body);
    try {
      await relay.exec(tenantId, instanceId, command);
    } catch (err) {
      // A refused command is still an action someone took: logged with its error code.
      await recordAudit(store.audit, tenantId, userId, `command.${command}`, instanceId, err instanceof HttpError ? err.code : 'server_error');
      throw err;
    }
    await recordAudit(store.audit, tenantId, userId, `command.${command}`, instanceId);
    res.json({ result: {} });
  });

  // "Sync all": the broadcast of docs/reference/api.md to every connected edge of the tenant.
  api.post('/tenants/:tenantId/authorizers/commands', admin, async function broadcastCommand(req, res) {
    const { tenantId, userId } = memberOf(res.locals);
    const { command } = parseBody(consoleCommandSchema, req.body);
    let result: Awaited<ReturnType<typeof relay.broadcast>>;
    try {
      result = await relay.broadcast(tenantId, command);
    } catch (err) {
      await recordAudit(store.audit, tenantId, userId, `broadcast.${command}`, null, err instanceof HttpError ? err.code : 'server_error');
      throw err;
    }
    // The target says how far it reached; an edge that did not confirm makes the outcome `edges_failed`.
    const reach = `${result.confirmed} of ${result.sent} confirmed, ${result.not_connected} not connected`;
    await recordAudit(store.audit, tenantId, userId, `broadcast.${command}`, reach, result.failed.length === 0 ? 'ok' : 'edges_failed');
    res.json({ result });
  });

  api.post('/tenants/:tenantId/discovery-key/rotate', admin, noBody(), async function rotateDiscoveryKey(_req, res) {
    const { tenantId, userId } = memberOf(res.locals);
    const key = await store.transaction(async (tx) => {
      const rotated = await tx.tenants.rotateKey(tenantId, 'discovery');
      await recordAudit(tx.audit, tenantId, userId, 'discovery_key.rotate', null);
      // Last, under the tenant's row lock: the scripts reading demo-tenant.json keep working.
      if (deps.demoTenantFile) recordRotatedDemoKey(deps.demoTenantFile, tenantId, 'discovery', rotated);
      return rotated;
    });
    res.set('Cache-Control', 'no-store').json({ discovery_api_key: key });
  });

  api.use('/tenants/:tenantId/connections', consoleConnectionRoutes(store, (tenantId) => `${CONSOLE_API_PATH}/tenants/${tenantId}/discovery-key/rotate`));
  api.use('/tenants/:tenantId/audit', consoleAuditRoutes(store));
  api.use('/tenants/:tenantId/decisions', consoleDecisionRoutes(store, openDecisionRepository(store), relay.tryDecision));
  api.use('/tenants/:tenantId/members', consoleMemberRoutes(store));
  api.use('/tenants/:tenantId/directory', consoleDirectoryRoutes(store));
  api.use('/tenants/:tenantId/policies', consolePolicyRoutes(store));

  const router = express.Router();
  // A write's query string is refused first (as on the admin API); credentials next, body last:
  // without the console's token nothing is parsed.
  router.use(CONSOLE_API_PATH, refuseWriteQuery(), requireConsoleUser(deps.auth), jsonBody(CONSOLE_BODY_LIMIT), noStore, api);
  if (deps.page) router.use(consolePageRouter(deps.page));
  return router;
}

/** Console answers are per user and some carry a key: never cached. */
const noStore: express.RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};
