import express, { type Router } from 'express';
import { z } from 'zod';
import { POLICY_NAME_PATTERN, POLICY_NAME_RULE } from '../decision-protocol';
import { BadRequestError, ConflictError, HttpError, NotFoundError, parseBody, parseParam, jsonBody } from '../http';
import { COMMANDS, INSTANCE_ID_PATTERN } from '../relay-protocol';
import type { Relay } from '../relay';
import { recordAudit, type AuditEntry } from './audit-repository';
import { recordRotatedDemoKey, type DemoTenantFileLocation } from './record-rotated-demo-key';
import type { ControlPlaneStore } from './control-plane-store';
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

/** `POST …/connections`: the policy the new connection's edge serves. */
export const consoleConnectionSchema = z.strictObject({ policy_name: z.string().regex(POLICY_NAME_PATTERN, POLICY_NAME_RULE) });
/** Edge connections a tenant may have once the console creates them (README Limits). */
export const MAX_CONNECTIONS_PER_TENANT = 100;

/** Dependencies of {@link createConsoleRouter}. */
export interface ConsoleDeps {
  readonly store: ControlPlaneStore;
  /** The relay's exec and registrations: the console takes exactly the path of §4.2 and §4.3. */
  readonly relay: Pick<Relay, 'exec' | 'registrations'>;
  readonly auth: ConsoleAuthOptions;
  /** The console's web page under `/console/`; the API alone when absent. */
  readonly page?: ConsolePage;
  /** The demo tenant file this control plane seeded: a rotation of that tenant's key is written into it. */
  readonly demoTenantFile?: DemoTenantFileLocation;
}

/** An audit entry as the API shows it. */
function auditView(e: AuditEntry) {
  return { id: e.id, actor: e.actor, action: e.action, target: e.target, outcome: e.outcome, at: new Date(e.at).toISOString() };
}

/**
 * The control-plane console's JSON API (docs/api.md, Console API) under `/console/api`. Every
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
    const members =
      summary.kind === 'organization'
        ? { members: (await store.members.members(tenantId)).map((m) => ({ user_id: m.userId, role: m.role, since: new Date(m.createdAt).toISOString() })) }
        : {};
    res.json({ id: summary.id, name: summary.name, kind: summary.kind, role, ...members });
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

  api.get('/tenants/:tenantId/connections', viewer, async function connections(_req, res) {
    const { tenantId } = memberOf(res.locals);
    const summary = (await store.tenants.get(tenantId))!;
    res.json({
      tenant_id: tenantId,
      connections: summary.connections.map((c) => ({ connection_id: c.connectionId, policy_name: c.policyName })),
      // Only the key's SHA-256 is stored: the console can say it exists, never show it.
      discovery_api_key: { stored: 'sha256_only', rotate: `${CONSOLE_API_PATH}/tenants/${tenantId}/discovery-key/rotate` },
    });
  });

  api.post('/tenants/:tenantId/connections', admin, async function createConnection(req, res) {
    const { tenantId, userId } = memberOf(res.locals);
    const { policy_name: policyName } = parseBody(consoleConnectionSchema, req.body);
    const created = await store.transaction(async (tx) => {
      // Count-then-add: under the tenant's row lock, so concurrent requests cannot both pass the bound.
      await tx.tenants.lock(tenantId);
      if ((await tx.images.taggedDigest(tenantId, policyName)) === undefined) {
        throw new NotFoundError(`no policy named ${policyName}: push it first`, 'unknown_policy');
      }
      if ((await tx.tenants.get(tenantId))!.connections.length >= MAX_CONNECTIONS_PER_TENANT) {
        throw new ConflictError(`this tenant already has ${MAX_CONNECTIONS_PER_TENANT} connections`, 'too_many_connections');
      }
      const connection = await tx.tenants.addConnection(tenantId, policyName);
      // The id only: the secret is in this answer and nowhere else (the store keeps its hash).
      await recordAudit(tx.audit, tenantId, userId, 'connection.create', connection.connectionId);
      return connection;
    });
    res.status(201).json({ connection_id: created.connectionId, policy_name: policyName, connection_secret: created.connectionSecret });
  });

  api.post('/tenants/:tenantId/discovery-key/rotate', admin, async function rotateDiscoveryKey(_req, res) {
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

  api.get('/tenants/:tenantId/audit', viewer, async function auditLog(req, res) {
    const { before } = req.query;
    if (before !== undefined && (typeof before !== 'string' || !/^[1-9][0-9]{0,15}$/.test(before))) {
      throw new BadRequestError('before must be an entry id');
    }
    const entries = await store.audit.list(memberOf(res.locals).tenantId, before === undefined ? undefined : Number(before));
    res.json({ entries: entries.map(auditView) });
  });

  api.use('/tenants/:tenantId/members', consoleMemberRoutes(store));
  api.use('/tenants/:tenantId/directory', consoleDirectoryRoutes(store));
  api.use('/tenants/:tenantId/policies', consolePolicyRoutes(store));

  const router = express.Router();
  // Credentials first, body second: without the console's token nothing is parsed.
  router.use(CONSOLE_API_PATH, requireConsoleUser(deps.auth), jsonBody(CONSOLE_BODY_LIMIT), noStore, api);
  if (deps.page) router.use(consolePageRouter(deps.page));
  return router;
}

/** Console answers are per user and some carry a key: never cached. */
const noStore: express.RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};
