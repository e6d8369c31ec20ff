import { appConnection, sidecarConnection, type Config, type EdgeConnectionCredentials } from '../config';
import { localBase, type Component } from './components';

/** One edge the stack runs: who hosts it, the connection it dials the relay with, and its host's log. */
export interface StackEdge {
  /** "the edge authorizer (sidecar)", "the RBAC app's embedded edge". */
  readonly label: string;
  readonly connection: EdgeConnectionCredentials;
  readonly logFile: string;
}

/** A started component and its log, as the launcher keeps them. */
interface Started {
  readonly component: Component;
  readonly logFile: string;
}

/** The app a component runs, for the components the launcher names `<app>-app`. */
function appOf(config: Config, component: Component) {
  return config.apps.list.find((app) => `${app.name}-app` === component.name);
}

/**
 * `fetch` bounded by a ref'd timer: `AbortSignal.timeout` is unref'd, and a request stuck on
 * a peer could then let the launcher's event loop run dry mid-check (see `run-component`).
 */
export async function fetchWithin(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch(url, { ...init, signal: controller.signal });
    await res.clone().arrayBuffer(); // the body too, within the bound
    return res;
  } finally {
    clearTimeout(timer);
  }
}

/** Whether the app at `base` decides with an edge of its own: its `/readyz` names its authorizer (`embedded`, `edge`, `local`). */
async function hostsEdge(base: string): Promise<boolean> {
  try {
    const res = await fetchWithin(`${base}/readyz`, {}, 5_000);
    return ((await res.json()) as { authorizer?: unknown }).authorizer === 'embedded';
  } catch {
    return false; // it answered its ready path a moment ago; a hiccup here is not an edge to wait for
  }
}

/**
 * The edges among the started components: the sidecar, and each app whose `/readyz` says it
 * embeds one (the app's own word: `AUTHORIZER` and its policy decide, in the app), with the
 * connection each reads the way the edge itself does (`sidecarConnection`, `appConnection`).
 */
export async function stackEdges(config: Config, started: readonly Started[], host: string): Promise<StackEdge[]> {
  const edges: StackEdge[] = [];
  for (const { component, logFile } of started) {
    const app = appOf(config, component);
    if (component.name === 'edge') {
      edges.push({ label: `the ${component.label} (sidecar)`, connection: sidecarConnection(config), logFile });
    } else if (app !== undefined && (await hostsEdge(localBase(host, component.port)))) {
      edges.push({ label: `the ${app.label}'s embedded edge`, connection: appConnection(config, app.name), logFile });
    }
  }
  return edges;
}

/**
 * Whether the control plane at `base` refuses `connection` (401): one conditional request for
 * the image the edge serves, answered 304, 200 or 404 for a connection it knows. Undefined
 * when it does not refuse it, or cannot be asked (the registration wait reports that).
 */
export async function refusedStatus(base: string, connection: Pick<EdgeConnectionCredentials, 'connectionId' | 'connectionSecret'>): Promise<number | undefined> {
  const basic = Buffer.from(`${connection.connectionId}:${connection.connectionSecret}`).toString('base64');
  try {
    const res = await fetchWithin(`${base}/api/v2/edge/policy-image`, { headers: { authorization: `Basic ${basic}`, 'if-none-match': '*' } }, 5_000);
    return res.status === 401 || res.status === 403 ? res.status : undefined;
  } catch {
    return undefined;
  }
}
