/**
 * Cluster mode with real processes: three control-plane processes (`main.ts`, DATABASE_URL and
 * REDIS_URL set) sharing one throwaway PostgreSQL database and one throwaway Redis, a round-robin TCP front, real edge
 * runtimes that reconnect with backoff through the front, and a reconnecting fake edge
 * that holds a command unanswered. One node is SIGKILLed mid-exec; Redis is restarted.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRoundRobinFront, type RoundRobinFront } from '../../scripts/lib/round-robin-front';
import { demoTenantPath } from '../../src/config';
import { openControlPlaneStore } from '../../src/control-plane';
import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { usePostgres } from '../helpers/postgres';
import { useLocalRedis, waitUntil } from '../helpers/redis';
import { FakeEdge } from '../relay/fake-edge';
import { startControlPlaneProcess, type ControlPlaneProcess } from './control-plane-process';
import { startEdgeNode, type EdgeHandle } from './edge-node';

jest.setTimeout(180_000);

const EXEC_TIMEOUT_MS = 3000;
const local = useLocalRedis();
const postgres = usePostgres();
let databaseUrl: string;

interface Tenant {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
}

let dir: string;
const nodes = new Map<string, ControlPlaneProcess>();
let front: RoundRobinFront;
let tenant: Tenant;
let other: Tenant;
let connection: { connectionId: string; connectionSecret: string };
const edges: EdgeHandle[] = [];

function env(nodeId: string): Record<string, string> {
  return {
    OUTPOST_DATA_DIR: dir,
    DATABASE_URL: databaseUrl,
    REDIS_URL: local.server.url,
    RELAY_NODE_ID: nodeId,
    RELAY_EXEC_TIMEOUT_MS: String(EXEC_TIMEOUT_MS),
    RELAY_HEARTBEAT_MS: '1000',
  };
}

async function exec(url: string, id: string, command = 'discovery', as: Tenant = tenant): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${url}${EXEC_PATH}`, {
    method: 'POST',
    headers: { 'service-tenant-id': as.tenantId, authorization: `basic ${as.discoveryApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ id, command: { [command]: {} } }),
  });
  const body = (await res.json()) as { code?: string };
  return { status: res.status, ...(body.code === undefined ? {} : { code: body.code }) };
}

interface Listed {
  id: string;
  info: { connected: boolean; node?: string | null };
}
async function owners(url: string): Promise<Map<string, string | null>> {
  const res = await fetch(`${url}${INSTANCE_REGISTRATIONS_PATH}?page_size=1000`, {
    headers: { 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}` },
  });
  if (res.status !== 200) return new Map();
  const body = (await res.json()) as { result: Listed[] };
  return new Map(body.result.map((r) => [r.id, r.info.connected ? (r.info.node ?? null) : null]));
}

/** A node's URL other than `owner`'s, among the running ones. */
function elsewhere(owner: string): ControlPlaneProcess {
  for (const [id, node] of nodes) if (id !== owner && node.child.exitCode === null && node.child.signalCode === null) return node;
  throw new Error(`no running node besides ${owner}`);
}
const running = () => [...nodes.values()].filter((n) => n.child.exitCode === null && n.child.signalCode === null);

/**
 * A fake edge that reconnects through the front 100 ms after its socket closes, as an edge
 * with backoff does; `behaviour` applies to the socket of the moment and the next ones.
 */
function reconnectingFake(instanceId: string) {
  let current: FakeEdge | undefined;
  let behaviour: 'ok' | 'never' = 'never';
  let stopped = false;
  let registrations = 0;
  const loop = (async () => {
    while (!stopped) {
      try {
        current = await FakeEdge.connect({ baseUrl: front.url, connectionId: connection.connectionId, secret: connection.connectionSecret, instanceId, behaviour });
        registrations += 1;
        await current.closed;
      } catch {
        // refused or cut during the handshake: try again
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    get current() {
      return current;
    },
    get registrations() {
      return registrations;
    },
    set behaviour(next: 'ok' | 'never') {
      behaviour = next;
      if (current) current.behaviour = next;
    },
    async stop() {
      stopped = true;
      await current?.close();
      await loop;
    },
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-cluster-proc-'));
  databaseUrl = await postgres.freshDatabase();
  // The first node seeds the database and the demo tenant; the others find them.
  nodes.set('cp-1', await startControlPlaneProcess(env('cp-1')));
  const [second, third] = await Promise.all([startControlPlaneProcess(env('cp-2')), startControlPlaneProcess(env('cp-3'))]);
  nodes.set('cp-2', second);
  nodes.set('cp-3', third);
  front = await startRoundRobinFront({ backends: [...nodes.values()].map((n) => `127.0.0.1:${n.port}`) });
  const demo = JSON.parse(readFileSync(demoTenantPath(dir), 'utf8')) as { tenant_id: string; discovery_api_key: string; connection_id: string; connection_secret: string };
  tenant = { tenantId: demo.tenant_id, discoveryApiKey: demo.discovery_api_key };
  connection = { connectionId: demo.connection_id, connectionSecret: demo.connection_secret };
  // A second tenant, written by this process into the shared database.
  const store = await openControlPlaneStore({ databaseUrl });
  try {
    const keys = await store.tenants.create('other tenant');
    other = { tenantId: keys.tenantId, discoveryApiKey: keys.discoveryApiKey };
  } finally {
    await store.close();
  }
  for (let i = 0; i < 4; i += 1) {
    const dataDir = join(dir, `edge-${i}`);
    mkdirSync(dataDir);
    edges.push(
      await startEdgeNode({
        relayUrl: front.url,
        credentials: connection,
        dataDir,
        hostname: `edge-${i}`,
        jwt: { issuer: 'http://127.0.0.1:9', jwksUri: 'http://127.0.0.1:9/.well-known/jwks.json', audience: 'urn:outpost:test' },
      }),
    );
  }
});

afterAll(async () => {
  for (const edge of edges) await edge.stop();
  await front?.close();
  for (const node of nodes.values()) await node.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('cluster of control-plane processes', () => {
  it('routes exec for both commands through a node that does not hold the edge, and keeps tenants apart', async () => {
    await waitUntil('every edge is listed connected', async () => {
      const listed = await owners(front.url);
      return edges.every((e) => typeof listed.get(e.instanceId) === 'string');
    });
    const listed = await owners(front.url);
    // Round robin spread them: more than one node holds edges.
    expect(new Set(edges.map((e) => listed.get(e.instanceId))).size).toBeGreaterThan(1);
    for (const edge of edges) {
      const via = elsewhere(listed.get(edge.instanceId)!);
      expect(await exec(via.url, edge.instanceId, 'discovery')).toEqual({ status: 200 });
      expect(await exec(via.url, edge.instanceId, 'sync_edge_directory')).toEqual({ status: 200 });
      expect(await exec(via.url, edge.instanceId, 'discovery', other)).toEqual({ status: 404, code: 'instance_not_found' });
    }
    expect(await exec(front.url, 'no-such-edge')).toEqual({ status: 404, code: 'instance_not_found' });
  });

  it('answers an exec whose owner is SIGKILLed mid-command with 504 or 409, and the edges re-register on the survivors', async () => {
    const held = reconnectingFake('held-edge');
    try {
      await waitUntil('the fake edge is listed connected', async () => typeof (await owners(front.url)).get('held-edge') === 'string');
      const owner = (await owners(front.url)).get('held-edge')!;
      const victim = nodes.get(owner)!;
      const via = elsewhere(owner);
      const pending = exec(via.url, 'held-edge');
      await waitUntil('the edge got the command', () => (held.current?.commands.length ?? 0) === 1);
      const before = held.registrations;
      await victim.kill();
      front.setBackends(running().map((n) => `127.0.0.1:${n.port}`));

      const answered = await pending;
      expect([409, 504]).toContain(answered.status);
      expect(['edge_timeout', 'instance_disconnected', 'instance_not_connected']).toContain(answered.code);

      // During the gap an exec answers promptly too (409 or 504), never hangs.
      expect([200, 409, 504]).toContain((await exec(via.url, 'held-edge')).status);

      held.behaviour = 'ok';
      await waitUntil('the fake edge re-registered on a survivor', () => held.registrations > before);
      await waitUntil('routed exec reaches it again', async () => (await exec(via.url, 'held-edge')).status === 200);

      // The real edges the dead node held came back through the front (backoff) on survivors.
      await waitUntil('every edge is held by a survivor', async () => {
        const listed = await owners(via.url);
        return edges.every((e) => {
          const node = listed.get(e.instanceId);
          return typeof node === 'string' && node !== owner;
        });
      });
      const listed = await owners(via.url);
      for (const edge of edges) {
        const other = elsewhere(listed.get(edge.instanceId)!);
        expect(await exec(other.url, edge.instanceId, 'sync_edge_directory')).toEqual({ status: 200 });
      }
    } finally {
      await held.stop();
    }
  });

  it('answers 503 storage_unavailable while PostgreSQL is down, keeps every edge socket, and recovers without a restart', async () => {
    await waitUntil('every edge is listed connected', async () => {
      const listed = await owners(front.url);
      return edges.every((e) => typeof listed.get(e.instanceId) === 'string');
    });
    const before = await owners(front.url);
    await postgres.server().shutdown();
    try {
      for (const node of running()) {
        const res = await fetch(`${node.url}${INSTANCE_REGISTRATIONS_PATH}`, {
          headers: { 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}` },
        });
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(((await res.json()) as { code: string }).code).toBe('storage_unavailable');
        const owned = edges.find((e) => before.get(e.instanceId) === [...nodes].find(([, n]) => n === node)?.[0]);
        if (owned) expect(await exec(node.url, owned.instanceId)).toEqual({ status: 503, code: 'storage_unavailable' });
      }
    } finally {
      await postgres.server().start();
    }
    await waitUntil('the management API answers again', async () => (await owners(front.url)).size > 0, 20_000);
    // The same nodes still hold the same sockets: nothing reconnected.
    const after = await owners(front.url);
    for (const edge of edges) expect(after.get(edge.instanceId)).toBe(before.get(edge.instanceId));
    for (const edge of edges) {
      expect(await exec(elsewhere(after.get(edge.instanceId)!).url, edge.instanceId, 'sync_edge_directory')).toEqual({ status: 200 });
    }
  });

  it('routes again after Redis restarts empty, without restarting any node', async () => {
    await local.server.restart();
    await waitUntil(
      'every edge is routable through another node',
      async () => {
        const listed = await owners(front.url);
        for (const edge of edges) {
          const owner = listed.get(edge.instanceId);
          if (typeof owner !== 'string') return false;
          if ((await exec(elsewhere(owner).url, edge.instanceId)).status !== 200) return false;
        }
        return true;
      },
      20_000,
    );
  });
});
