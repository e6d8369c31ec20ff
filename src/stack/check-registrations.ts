import { demoTenantPath, foreignDemoTenantWayOut, nameDatabase, readDemoTenantFile, type Config, type DemoTenant } from '../config';
import { INSTANCE_REGISTRATIONS_PATH, REGISTRATIONS_PAGE } from '../relay-protocol';
import { localBase, type Component } from './components';
import { fetchWithin, refusedStatus, stackEdges, type StackEdge } from './stack-edges';

/** Between two looks at the registration list while edges are still dialling. */
const POLL_MS = 250;

/**
 * How long the launcher waits, once every component is ready, for each edge to be registered
 * with the relay (docs/reference/limits.md); past it the missing edges are named with their logs, exit 1.
 */
export const REGISTRATION_TIMEOUT_MS = 30_000;

/** The stack started, but not every edge is registered with the relay: the lines say which, why and the way out. */
export class EdgesNotRegisteredError extends Error {
  constructor(readonly lines: readonly string[]) {
    super(['Outpost is not up: not every edge is registered with the relay. Stopping.', ...lines.map((line) => `  - ${line}`)].join('\n'));
    this.name = 'EdgesNotRegisteredError';
  }
}

/** The tenant whose registrations the launcher lists: the scripts' own credentials, from the environment or the demo tenant file. */
export interface ListingCredentials {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
  readonly source: string;
}

/** What {@link checkRegistrations} needs. */
export interface RegistrationCheck {
  readonly config: Config;
  /** Where the launcher reaches the control plane (the cluster's front, on one machine). */
  readonly controlPlane: string;
  readonly edges: readonly StackEdge[];
  readonly listing: ListingCredentials | undefined;
  readonly timeoutMs: number;
  /** The control plane's engine when the launcher's own configuration does not say (`npm run cluster` passes DATABASE_URL to its nodes only). */
  readonly engine?: 'sqlite' | 'postgres';
}

/** `OUTPOST_TENANT_ID` and `OUTPOST_DISCOVERY_API_KEY` when both are set (as the scripts take them), else the demo tenant file's. */
export function listingCredentials(config: Config): ListingCredentials | undefined {
  const { tenantId, discoveryApiKey } = config.tenantCredentials;
  if (tenantId && discoveryApiKey) return { tenantId, discoveryApiKey, source: 'OUTPOST_TENANT_ID and OUTPOST_DISCOVERY_API_KEY' };
  try {
    const demo = readDemoTenantFile(config.dataDir);
    return { tenantId: demo.tenant_id, discoveryApiKey: demo.discovery_api_key, source: demoTenantPath(config.dataDir) };
  } catch {
    return undefined;
  }
}

/** The connection ids with a connected registration, every page; a status when the list is refused. */
async function connectedConnections(base: string, listing: ListingCredentials): Promise<Set<string> | number> {
  const connected = new Set<string>();
  let token: string | undefined;
  do {
    const query = `?page_size=${REGISTRATIONS_PAGE.maxSize}${token === undefined ? '' : `&page_token=${encodeURIComponent(token)}`}`;
    const res = await fetchWithin(`${base}${INSTANCE_REGISTRATIONS_PATH}${query}`, {
      headers: { 'service-tenant-id': listing.tenantId, authorization: `basic ${listing.discoveryApiKey}` },
    }, 5_000);
    if (res.status !== 200) return res.status;
    const body = (await res.json()) as { result: { info: { connection_id: string; connected?: boolean } }[]; next_page_token?: string };
    for (const r of body.result) if (r.info.connected === true) connected.add(r.info.connection_id);
    token = body.next_page_token;
  } while (token !== undefined);
  return connected;
}

/**
 * The way out for edges whose connections the control plane refuses: for the demo tenant
 * file, that the file is not this control plane's (naming the database it was written for)
 * and how to get one that is; for variables, which to set or unset.
 */
function wayOut(config: Config, refused: readonly StackEdge[], engine: 'sqlite' | 'postgres'): string[] {
  const lines: string[] = [];
  const here = nameDatabase({ engine, database: engine === 'sqlite' ? config.dataDir : 'DATABASE_URL' });
  for (const source of new Set(refused.map((e) => e.connection.source))) {
    if (source !== demoTenantPath(config.dataDir)) {
      lines.push(`Set ${source} to a connection of ${here} (npm run tenants -- add-connection <tenant-id> --policy <policy>), or unset both to use the demo tenant file.`);
      continue;
    }
    let demo: DemoTenant | undefined;
    try {
      demo = readDemoTenantFile(config.dataDir);
    } catch {
      demo = undefined;
    }
    const written = demo?.control_plane === undefined ? '' : `; it was written for ${nameDatabase(demo.control_plane)}`;
    lines.push(`${source} does not belong to ${here}${demo ? ` (it names tenant ${demo.tenant_id}${written})` : ''}. ${foreignDemoTenantWayOut(config.dataDir, engine)}.`);
  }
  return lines;
}

/**
 * Waits until every edge of the stack has a connected registration at the relay, and
 * resolves with their labels. A refused connection (401: unknown to this control plane, or a
 * wrong secret) fails at once, never heals by waiting, and is named with the way out; so is
 * a Discovery API key the relay refuses (the scripts would be refused too). Edges that are
 * accepted but not registered within `timeoutMs` are named with their logs. This is the trap
 * it closes: an edge with last good state on disk answers its `/readyz` while refused.
 */
export async function checkRegistrations(check: RegistrationCheck): Promise<string[]> {
  const { config, edges } = check;
  const refused: StackEdge[] = [];
  const lines: string[] = [];
  for (const edge of edges) {
    const status = await refusedStatus(check.controlPlane, edge.connection);
    if (status === undefined) continue;
    refused.push(edge);
    lines.push(`${edge.label} is refused by the control plane (${status}): its connection ${edge.connection.connectionId}, from ${edge.connection.source}, is unknown to it or its secret is wrong.`);
  }
  const engine = check.engine ?? (config.controlPlane.databaseUrl === undefined ? 'sqlite' : 'postgres');
  if (refused.length > 0) throw new EdgesNotRegisteredError([...lines, ...wayOut(config, refused, engine)]);
  if (edges.length === 0) return [];
  if (check.listing === undefined) {
    throw new EdgesNotRegisteredError(['no Discovery API key to list the edges\' registrations with: set OUTPOST_TENANT_ID and OUTPOST_DISCOVERY_API_KEY (the tenant of the edges\' connections)']);
  }
  const deadline = Date.now() + check.timeoutMs;
  for (;;) {
    const connected = await connectedConnections(check.controlPlane, check.listing).catch(() => new Set<string>());
    if (typeof connected === 'number') {
      throw new EdgesNotRegisteredError([
        `the relay refused tenant ${check.listing.tenantId}'s Discovery API key from ${check.listing.source} (${connected}); the scripts, which use it, would be refused too.`,
        `If the key was rotated where that file is not kept in step, set both OUTPOST_TENANT_ID and OUTPOST_DISCOVERY_API_KEY to the tenant's id and its new key, here and for the scripts.`,
      ]);
    }
    const missing = edges.filter((e) => !connected.has(e.connection.connectionId));
    if (missing.length === 0) return edges.map((e) => e.label);
    if (Date.now() >= deadline) {
      throw new EdgesNotRegisteredError(
        missing.map((e) => `${e.label} (connection ${e.connection.connectionId}) did not register with the relay within ${check.timeoutMs / 1000} s; see ${e.logFile}`),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS)); // the polling rate: the relay has no event to wait on from here
  }
}

/**
 * The launcher's `verify` step: the started components' edges ({@link stackEdges}) checked
 * at the control plane's own address (`npm run cluster`'s front, there), within `timeoutMs`.
 */
export function registrationCheck(config: Config, timeoutMs: number = REGISTRATION_TIMEOUT_MS, engine?: 'sqlite' | 'postgres') {
  return {
    label: 'waiting for every edge to register with the relay',
    run: async (started: readonly { readonly component: Component; readonly logFile: string }[]) => {
      const edges = await stackEdges(config, started, config.host);
      const controlPlane = localBase(config.host, config.controlPlane.port);
      return checkRegistrations({ config, controlPlane, edges, listing: listingCredentials(config), timeoutMs, ...(engine === undefined ? {} : { engine }) });
    },
  };
}
