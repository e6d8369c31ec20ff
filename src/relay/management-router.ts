import express from 'express';
import type { RequestHandler, Router } from 'express';
import { BadRequestError, ConflictError, httpError, jsonBody } from '../http';
import { INSTANCE_ID_PATTERN } from '../relay-protocol';
import type { CommandName, EdgeStatus } from '../relay-protocol';
import { renderDriftMetrics, renderDriftTotals, type ConnectedEdgeDrift } from './drift-metrics';
import { edgeDrift, memoizeDesiredState, type DesiredEdgeState, type DesiredStateLookup } from './edge-drift';
import { commandRoutes } from './command-routes';
import type { Broadcast } from './broadcast';
import { metricsView } from './metrics-view';
import { instanceNotFound } from './relay-errors';
import type { EdgeLink, Registration } from './registration';
import type { RegistrationStore } from './registration-store';

import { INSTANCE_REGISTRATIONS_PATH, METRICS_PATH, REGISTRATIONS_PAGE } from '../relay-protocol';

export { INSTANCE_REGISTRATIONS_PATH, METRICS_PATH, REGISTRATIONS_PAGE };

/** Dependencies of {@link createManagementRouter}. */
export interface ManagementRouterDeps {
  /** The tenant's Discovery API key check; sets `res.locals.tenantId`. */
  readonly requireDiscoveryKey: RequestHandler;
  readonly registrations: RegistrationStore;
  /** Whether each of the tenant's instances is connected, and in cluster mode to which node. */
  readonly links: (tenantId: string, instanceIds: readonly string[]) => Promise<EdgeLink[]>;
  readonly exec: (tenantId: string, instanceId: string, command: CommandName) => Promise<EdgeStatus>;
  /** The tenant-wide command: every matching connected edge, every node. */
  readonly broadcast: Broadcast;
  /** What each edge should run: its policy's `latest` digest and the central directory revision. */
  readonly desiredState: DesiredStateLookup;
  /** The registrations of the edges this relay holds a live socket for. */
  readonly connectedRegistrations: () => Promise<Registration[]>;
  /** `METRICS_TOKEN`: the bearer token that shows `/metrics` per tenant; none, and no caller sees tenant ids. */
  readonly metricsToken?: string;
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
 * as docs/reference/api.md lists, the drift fields last (additive: the contract's fields never change).
 */
function toView(r: Registration, link: EdgeLink, desired: DesiredEdgeState) {
  const drift = edgeDrift(r, desired);
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
      latest_policy_digest: drift.latestPolicyDigest,
      policy_drift: drift.policyDrift,
      central_directory_revision: drift.centralDirectoryRevision,
      directory_lag: drift.directoryLag,
    } as RegistrationInfo,
  };
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
  latest_policy_digest: string | null;
  policy_drift: boolean;
  central_directory_revision: number | null;
  directory_lag: number;
  node?: string | null;
};

/** A page of registrations: the body of §4.3, and of the console's authorizers view. */
export interface RegistrationsPage {
  readonly result: ReturnType<typeof toView>[];
  readonly next_page_token?: string;
}

/**
 * One page of the tenant's registrations for `page_size` / `page_token` in `query`, with
 * each edge's drift. Throws 400 for bad paging parameters.
 */
export async function registrationsPage(
  deps: Pick<ManagementRouterDeps, 'registrations' | 'links' | 'desiredState'>,
  tenantId: string,
  query: Record<string, unknown>,
): Promise<RegistrationsPage> {
  const { limit, after } = parsePage(query);
  // One row more than asked says whether another page exists, without a count query.
  const rows = await deps.registrations.listForTenant(tenantId, { limit: limit + 1, ...(after === undefined ? {} : { after }) });
  const page = rows.slice(0, limit);
  const desired = memoizeDesiredState(deps.desiredState);
  const ids: string[] = [];
  for (const r of page) ids.push(r.instanceId);
  const links = await deps.links(tenantId, ids);
  const result: ReturnType<typeof toView>[] = [];
  for (let i = 0; i < page.length; i += 1) {
    const r = page[i]!;
    result.push(toView(r, links[i]!, await desired(r.tenantId, r.connectionId)));
  }
  if (rows.length <= limit) return { result };
  return { result, next_page_token: Buffer.from(page[page.length - 1]!.instanceId).toString('base64url') };
}

/**
 * The relay management API, with path-absolute routes to mount on the control plane app,
 * plus `GET /metrics` (drift gauges: totals without credentials, per tenant with the metrics
 * token). The management routes sit behind the tenant's Discovery API key
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

  router.get(METRICS_PATH, async function driftMetrics(req, res) {
    // Checked first: a refused caller costs no store reads.
    const view = metricsView(req.headersDistinct.authorization, deps.metricsToken);
    const desired = memoizeDesiredState(deps.desiredState);
    const edges: ConnectedEdgeDrift[] = [];
    for (const r of await deps.connectedRegistrations()) {
      edges.push({ tenantId: r.tenantId, drift: edgeDrift(r, await desired(r.tenantId, r.connectionId)) });
    }
    const text = view === 'per-tenant' ? renderDriftMetrics(edges) : renderDriftTotals(edges);
    res.set({ 'Cache-Control': 'no-store', Vary: 'Authorization' }).type('text/plain; version=0.0.4; charset=utf-8').send(text);
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

  // Exec and broadcast: key first, then content type and size, then the command. With the
  // opt-in RELAY_BARE_EXEC=on the control plane serves their plain requests on bare node:http
  // before this router sees them (src/fast-path); the rest are still answered here.
  for (const route of commandRoutes(deps)) {
    router.post(route.path, discoveryKey, requireJson, jsonBody(route.limitBytes), async function runCommand(req, res) {
      const reply = await route.run(res.locals.tenantId as string, req.body);
      res.set(reply.headers).json(reply.body);
    });
  }
  return router;
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
