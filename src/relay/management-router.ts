import express from 'express';
import type { RequestHandler, Router } from 'express';
import { BadRequestError, ConflictError, httpError, jsonBody } from '../http';
import { INSTANCE_ID_PATTERN } from '../relay-protocol';
import type { CommandName, EdgeStatus } from '../relay-protocol';
import { execRoute, type CommandRoute } from './command-routes';
import { instanceNotFound } from './relay-errors';
import type { RelayExtensionParts } from './relay-extension';
import type { EdgeLink, Registration } from './registration';
import type { RegistrationStore } from './registration-store';

import { INSTANCE_REGISTRATIONS_PATH, REGISTRATIONS_PAGE } from '../relay-protocol';

export { INSTANCE_REGISTRATIONS_PATH, REGISTRATIONS_PAGE };

/** Dependencies of {@link createManagementRouter}. */
export interface ManagementRouterDeps {
  /** The tenant's Discovery API key check; sets `res.locals.tenantId`. */
  readonly requireDiscoveryKey: RequestHandler;
  readonly registrations: RegistrationStore;
  /** Whether each of the tenant's instances is connected, and in cluster mode to which node. */
  readonly links: (tenantId: string, instanceIds: readonly string[]) => Promise<EdgeLink[]>;
  /** Exec, then the extensions' commands ({@link commandRoutesOf}): served behind the key, exec's checks first. */
  readonly commandRoutes: readonly CommandRoute[];
  /** What the relay's extensions add: routes, commands, listing fields (relay-extension.ts). */
  readonly extensions: readonly RelayExtensionParts[];
}

/** `page_size` (1…max, default 100) and `page_token` (opaque: the last id of the previous page). */
function parsePage(query: Record<string, unknown>): { limit: number; after: string | undefined } {
  const { page_size: size, page_token: token } = query;
  let limit: number = REGISTRATIONS_PAGE.defaultSize;
  if (size !== undefined) {
    if (typeof size !== 'string' || !/^[1-9][0-9]{0,3}$/.test(size) || Number(size) > REGISTRATIONS_PAGE.maxSize) {
      throw new BadRequestError(`page_size must be an integer from 1 to ${REGISTRATIONS_PAGE.maxSize}`);
    }
    limit = Number(size);
  }
  if (token === undefined) return { limit, after: undefined };
  const after = typeof token === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(token) ? Buffer.from(token, 'base64url').toString('utf8') : '';
  if (!INSTANCE_ID_PATTERN.test(after)) throw new BadRequestError('page_token is not a token this endpoint issued');
  return { limit, after };
}

/**
 * One element of the `result` array (docs/service-interface.md §2.5); `info` carries more,
 * as docs/reference/api.md lists, the extensions' fields after the seed's (additive:
 * the contract's fields never change), then `node` in cluster mode.
 */
function toView(r: Registration, link: EdgeLink, added: readonly Readonly<Record<string, unknown>>[]) {
  const connected = link.connected;
  const view = {
    id: r.instanceId,
    info: {
      connection_id: r.connectionId,
      hostname: r.hostname,
      version: r.version,
      policy_name: r.policyName,
      policy_digest: r.policyDigest,
      directory_revision: r.directoryRevision,
      connected,
      connected_at: new Date(r.connectedAt).toISOString(),
      last_seen: new Date(r.lastSeen).toISOString(),
    } as RegistrationInfo,
  };
  // Additive only: an extension's field never replaces one already there (the seed's, or an earlier extension's).
  for (const fields of added) {
    for (const [name, value] of Object.entries(fields)) if (!Object.hasOwn(view.info, name)) (view.info as Record<string, unknown>)[name] = value;
  }
  if (link.node !== undefined) view.info.node = link.node;
  return view;
}

/** A registration's `info`; `node` only in cluster mode (docs/reference/api.md). */
type RegistrationInfo = {
  connection_id: string;
  hostname: string;
  version: string;
  policy_name: string;
  policy_digest: string | null;
  directory_revision: number;
  connected: boolean;
  connected_at: string;
  last_seen: string;
  node?: string | null;
  /** The extensions' fields (RelayExtensionParts.registrationInfo), after the seed's. */
  [added: string]: unknown;
};

/** A page of registrations: the body of §4.3, and of the console's authorizers view. */
export interface RegistrationsPage {
  readonly result: ReturnType<typeof toView>[];
  readonly next_page_token?: string;
}

/**
 * One page of the tenant's registrations for `page_size` / `page_token` in `query`, with the
 * fields the extensions add to each. Throws 400 for bad paging parameters.
 */
export async function registrationsPage(
  deps: Pick<ManagementRouterDeps, 'registrations' | 'links' | 'extensions'>,
  tenantId: string,
  query: Record<string, unknown>,
): Promise<RegistrationsPage> {
  const { limit, after } = parsePage(query);
  // One row more than asked says whether another page exists, without a count query.
  const rows = await deps.registrations.listForTenant(tenantId, { limit: limit + 1, ...(after === undefined ? {} : { after }) });
  const page = rows.slice(0, limit);
  const ids: string[] = [];
  for (const r of page) ids.push(r.instanceId);
  const links = await deps.links(tenantId, ids);
  const added: (readonly Readonly<Record<string, unknown>>[])[] = [];
  for (const extension of deps.extensions) if (extension.registrationInfo) added.push(await extension.registrationInfo(page));
  const result: ReturnType<typeof toView>[] = [];
  for (let i = 0; i < page.length; i += 1) result.push(toView(page[i]!, links[i]!, added.map((fields) => fields[i]!)));
  if (rows.length <= limit) return { result };
  return { result, next_page_token: Buffer.from(page[page.length - 1]!.instanceId).toString('base64url') };
}

/**
 * The relay management API, with path-absolute routes to mount on the control plane app, then
 * its extensions' routes. The management routes sit behind the tenant's Discovery API key
 * (docs/service-interface.md §5) and only ever see the caller's own tenant; the tenant id
 * comes from `requireTenantKey`, never from the body.
 */
export function createManagementRouter(deps: ManagementRouterDeps): Router {
  const router = express.Router();
  const discoveryKey = deps.requireDiscoveryKey;

  router.get(INSTANCE_REGISTRATIONS_PATH, discoveryKey, async function listInstanceRegistrations(req, res) {
    const body = await registrationsPage(deps, res.locals.tenantId as string, req.query as Record<string, unknown>);
    res.set('Cache-Control', 'no-store').json(body);
  });

  // Releases an instance id so another edge connection of the tenant may register it.
  router.delete(`${INSTANCE_REGISTRATIONS_PATH}/:id`, discoveryKey, async function releaseInstance(req, res) {
    const tenantId = res.locals.tenantId as string;
    const instanceId = String(req.params.id);
    if ((await deps.links(tenantId, [instanceId]))[0]!.connected) {
      throw new ConflictError('the instance is connected; stop its edge before releasing its id', 'instance_connected');
    }
    if (!(await deps.registrations.release({ tenantId, instanceId }))) throw instanceNotFound();
    res.status(204).end();
  });

  // Exec and the extensions' commands (broadcast): key first, then content type and size, then
  // the command. With the opt-in RELAY_BARE_EXEC=on the control plane serves their plain
  // requests on bare node:http before this router sees them (src/fast-path); the rest are still answered here.
  for (const route of deps.commandRoutes) {
    router.post(route.path, discoveryKey, requireJson, jsonBody(route.limitBytes), async function runCommand(req, res) {
      const reply = await route.run(res.locals.tenantId as string, req.body);
      res.set(reply.headers).json(reply.body);
    });
  }
  for (const extension of deps.extensions) if (extension.router) router.use(extension.router);
  return router;
}

/** Exec, then each extension's commands: what the management router serves and the bare exec may. */
export function commandRoutesOf(deps: {
  readonly exec: (tenantId: string, instanceId: string, command: CommandName) => Promise<EdgeStatus>;
  readonly extensions: readonly RelayExtensionParts[];
}): readonly CommandRoute[] {
  return [execRoute(deps), ...deps.extensions.flatMap((extension) => extension.commandRoutes ?? [])];
}

/**
 * A malformed body is a 400 (docs/reference/api.md: "not JSON"). req.is() is null when there
 * is no body at all; the body parsers report that as 400 too.
 */
const requireJson: RequestHandler = function requireJson(req, _res, next) {
  if (req.is('application/json') === false) {
    throw httpError('bad_request', 'content-type must be application/json');
  }
  next();
};
