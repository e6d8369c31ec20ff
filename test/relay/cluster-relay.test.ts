/**
 * Cluster mode in one process: two relays (nodes) over one control-plane database (two
 * store handles on one SQLite file) and one real Redis, real WebSocket edges. An exec sent
 * to the node that does not hold the edge's socket is routed to the one that does, with the
 * same answers as on a single node.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createControlPlaneApp, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { startControlPlaneRelay } from '../../src/control-plane-server';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { CLOSE_CODES, EXEC_PATH, INSTANCE_REGISTRATIONS_PATH, type Relay } from '../../src/relay';
import { connectCluster } from '../../src/cluster';
import type { RelayMessage, SampledDecision } from '../../src/relay-protocol';
import { useLocalRedis, waitUntil } from '../helpers/redis';
import { EDGE_ERROR_MESSAGE, EDGE_STATUS, FakeEdge, type FakeEdgeOptions } from './fake-edge';
import type { TestTenant } from './relay-kit';

const EXEC_TIMEOUT_MS = 1000;
const local = useLocalRedis();

interface Node {
  readonly id: string;
  readonly relay: Relay;
  readonly store: ControlPlaneStore;
  readonly server: Server;
  readonly url: string;
  stop(): Promise<void>;
}

let dir: string;
let nodes: Node[] = [];
let edges: FakeEdge[] = [];
let a: TestTenant;
let b: TestTenant;

async function startNode(id: string, options: { maxPendingPerEdge?: number; heartbeatMs?: number } = {}): Promise<Node> {
  const store = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
  const relay = await startControlPlaneRelay({
    store,
    logger: silentLogger(),
    execTimeoutMs: EXEC_TIMEOUT_MS,
    heartbeatMs: options.heartbeatMs ?? 500,
    ...(options.maxPendingPerEdge ? { maxPendingPerEdge: options.maxPendingPerEdge } : {}),
    cluster: { redisUrl: local.server.url, nodeId: id },
  });
  const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter] });
  const server = await listen(app, 0, '127.0.0.1');
  relay.attach(server);
  let stopped = false;
  const node: Node = {
    id,
    relay,
    store,
    server,
    url: baseUrl(server),
    async stop() {
      if (stopped) return;
      stopped = true;
      await relay.close();
      server.closeAllConnections();
      await close(server);
      await store.close();
    },
  };
  nodes.push(node);
  return node;
}

async function addTenant(store: ControlPlaneStore, name: string): Promise<TestTenant> {
  const keys = await store.tenants.create(name);
  const connection = await store.tenants.addConnection(keys.tenantId, 'rbac');
  return { ...keys, connectionId: connection.connectionId, secret: connection.connectionSecret };
}

async function edge(node: Node, tenant: TestTenant, options: Partial<FakeEdgeOptions> = {}): Promise<FakeEdge> {
  const connected = await FakeEdge.connect({ baseUrl: node.url, connectionId: tenant.connectionId, secret: tenant.secret, ...options });
  edges.push(connected);
  return connected;
}

function call(node: Node, path: string, tenant: TestTenant, body?: unknown): Promise<Response> {
  return fetch(`${node.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'service-tenant-id': tenant.tenantId,
      authorization: `basic ${tenant.discoveryApiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/**
 * Starts watching Redis, then gives a promise that resolves once `node` has run the presence
 * release script. MONITOR reports every command in the order Redis ran them; a release is the
 * one presence script called with (key, node, connected_at): `EVALSHA <sha> 1 <key> <node> <connected_at>`.
 */
async function presenceReleaseBy(node: string): Promise<{ readonly done: Promise<void> }> {
  const monitor = await (await local.connect('monitor')).monitor();
  const seen = new Promise<void>((resolve) => {
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (/^eval(sha)?$/i.test(args[0] ?? '') && args.length === 6 && args[4] === node) resolve();
    });
  });
  return { done: seen.finally(() => monitor.disconnect()) };
}

async function exec(node: Node, tenant: TestTenant, id: string, command = 'discovery') {
  const res = await call(node, EXEC_PATH, tenant, { id, command: { [command]: {} } });
  return { status: res.status, body: (await res.json()) as unknown, retryAfter: res.headers.get('retry-after') };
}

interface Listed {
  id: string;
  info: { connected: boolean; node?: string | null };
}
async function listing(node: Node, tenant: TestTenant): Promise<{ status: number; result: Listed[] }> {
  const res = await call(node, INSTANCE_REGISTRATIONS_PATH, tenant);
  const body = (await res.json()) as { result: Listed[] };
  return { status: res.status, result: body.result };
}

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-cluster-'));
  nodes = [];
  edges = [];
  const first = await startNode('node-1');
  a = await addTenant(first.store, 'tenant a');
  b = await addTenant(first.store, 'tenant b');
  await startNode('node-2');
});
afterEach(async () => {
  await Promise.all(edges.map((e) => e.close()));
  for (const node of nodes) await node.stop();
  // Each test starts from an empty Redis: no presence left from the one before.
  await local.server.restart();
  rmSync(dir, { recursive: true, force: true });
});

describe('cluster mode: exec sent to a node that does not hold the edge', () => {
  it('is routed to the owning node for both commands, and the edge confirms', async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1' });
    expect(await exec(n2, a, 'edge-1', 'discovery')).toMatchObject({ status: 200, body: { result: {} } });
    expect(await exec(n2, a, 'edge-1', 'sync_edge_directory')).toMatchObject({ status: 200, body: { result: {} } });
    expect(e.commands.map((c) => c.command)).toEqual(['discovery', 'sync_edge_directory']);
  });

  it('routes a decision sample and brings it back whole', async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1' });
    const entries: SampledDecision[] = [];
    for (let n = 0; n < 300; n += 1) {
      entries.push({ principal: `user-${n}`, action: 'GET', resource: { type: 'Resource', id: `r-${n}` }, decision: 'allow', policy_digest: EDGE_STATUS.policy_digest!, directory_revision: 3 });
    }
    const result = n2.relay.sampleDecisions(a.tenantId, 'edge-1');
    const frame: RelayMessage = await e.next();
    if (frame.type !== 'sample_request') throw new Error(`expected sample_request, got ${frame.type}`);
    e.sendJson({ type: 'sample_chunk', request_id: frame.request_id, entries: entries.slice(0, 200), done: false, status: EDGE_STATUS });
    e.sendJson({ type: 'sample_chunk', request_id: frame.request_id, entries: entries.slice(200), done: true, status: EDGE_STATUS });
    expect(await result).toEqual({ status: EDGE_STATUS, entries });
  });

  it('routes a tried decision to the owning node and brings back its answer, or the edge\'s failure as exec does', async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1' });
    const request = { principal: 'rick@the-citadel.com', action: 'DELETE', resource: { type: 'Resource', id: 'x' } };
    const answer = { principal: { id: 'u-rick', email: 'rick@the-citadel.com' }, decision: 'allow' as const, reasons: [{ policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' }], policy_digest: EDGE_STATUS.policy_digest!, directory_revision: 3 };
    const tried = n2.relay.tryDecision(a.tenantId, 'edge-1', request);
    const frame: RelayMessage = await e.next();
    if (frame.type !== 'try_decision') throw new Error(`expected try_decision, got ${frame.type}`);
    expect(frame.request).toEqual(request);
    e.sendJson({ type: 'try_result', request_id: frame.request_id, ...answer });
    expect(await tried).toEqual(answer);

    const failing = n2.relay.tryDecision(a.tenantId, 'edge-1', request);
    const next: RelayMessage = await e.next();
    e.sendJson({ type: 'command_result', request_id: (next as { request_id: string }).request_id, ok: false, error: { code: 'no_image', message: 'the edge has no policy image yet' } });
    await expect(failing).rejects.toMatchObject({ status: 502, code: 'no_image' });
    // Another tenant cannot reach the edge through either node.
    await expect(n2.relay.tryDecision(b.tenantId, 'edge-1', request)).rejects.toMatchObject({ status: 404, code: 'instance_not_found' });
  });

  it('answers 404 for an instance no node knows', async () => {
    const [, n2] = nodes as [Node, Node];
    expect(await exec(n2, a, 'nobody')).toMatchObject({ status: 404, body: { code: 'instance_not_found' } });
  });

  it('answers 409 once the edge disconnected, and 409 instance_disconnected when it drops mid-command', async () => {
    const [n1, n2] = nodes as [Node, Node];
    const dropping = await edge(n1, a, { instanceId: 'edge-drop', behaviour: 'close' });
    expect(await exec(n2, a, 'edge-drop')).toMatchObject({ status: 409, body: { code: 'instance_disconnected' } });
    await dropping.closed;
    await waitUntil('the edge is released', async () => (await listing(n2, a)).result.every((r) => !r.info.connected));
    expect(await exec(n2, a, 'edge-drop')).toMatchObject({ status: 409, body: { code: 'instance_not_connected' } });
  });

  it("answers 502 with the edge's code when it is allow-listed, edge_error otherwise", async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1', behaviour: 'error', errorCode: 'sync_failed' });
    expect(await exec(n2, a, 'edge-1')).toMatchObject({ status: 502, body: { code: 'sync_failed', message: EDGE_ERROR_MESSAGE } });
    e.errorCode = 'made_up_code';
    expect(await exec(n2, a, 'edge-1')).toMatchObject({ status: 502, body: { code: 'edge_error', message: EDGE_ERROR_MESSAGE } });
  });

  it('answers 504 when the edge does not confirm within the exec timeout', async () => {
    const [n1, n2] = nodes as [Node, Node];
    await edge(n1, a, { instanceId: 'edge-1', behaviour: 'never' });
    expect(await exec(n2, a, 'edge-1')).toMatchObject({ status: 504, body: { code: 'edge_timeout' } });
  });

  it("answers 429 with Retry-After when the owner's pending cap for the edge is reached", async () => {
    const n3 = await startNode('node-3', { maxPendingPerEdge: 1 });
    const [, n2] = nodes as [Node, Node];
    const silent = await edge(n3, a, { instanceId: 'edge-1', behaviour: 'never' });
    const first = exec(n2, a, 'edge-1');
    // The first command is pending once the edge has it (routed through node 3, which holds it).
    await waitUntil('the first command reaches the edge', () => silent.commands.length === 1);
    expect(await exec(n2, a, 'edge-1')).toEqual({
      status: 429,
      body: { code: 'too_many_pending', message: 'too many commands are waiting for this instance' },
      retryAfter: '1',
    });
    expect((await first).status).toBe(504);
  });

  it("keeps tenants apart across nodes: tenant B's key cannot reach or list tenant A's instance", async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1' });
    expect(await exec(n2, b, 'edge-1')).toMatchObject({ status: 404, body: { code: 'instance_not_found' } });
    expect((await listing(n2, b)).result).toEqual([]);
    expect(e.commands).toEqual([]);
  });
});

describe('cluster mode: registrations', () => {
  it("lists another node's edge as connected, with the node holding it, and not connected once it left", async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1' });
    for (const node of [n1, n2]) {
      expect((await listing(node, a)).result).toMatchObject([{ id: 'edge-1', info: { connected: true, node: 'node-1' } }]);
    }
    await e.close();
    await waitUntil('node 2 sees the edge gone', async () => !(await listing(n2, a)).result[0]!.info.connected);
    expect((await listing(n2, a)).result).toMatchObject([{ id: 'edge-1', info: { connected: false, node: null } }]);
  });

  it("refuses to release an instance connected to another node (409)", async () => {
    const [n1, n2] = nodes as [Node, Node];
    await edge(n1, a, { instanceId: 'edge-1' });
    const res = await fetch(`${n2.url}${INSTANCE_REGISTRATIONS_PATH}/edge-1`, {
      method: 'DELETE',
      headers: { 'service-tenant-id': a.tenantId, authorization: `basic ${a.discoveryApiKey}` },
    });
    expect(res.status).toBe(409);
  });

  it("moves an edge from node 1 to node 2: the newest claim wins, node 1 closes its socket and its release keeps node 2's claim", async () => {
    const [n1, n2] = nodes as [Node, Node];
    const old = await edge(n1, a, { instanceId: 'edge-1' });
    const released = await presenceReleaseBy('node-1'); // watching before the move
    const moved = await edge(n2, a, { instanceId: 'edge-1' });
    expect((await old.closed).code).toBe(CLOSE_CODES.replaced);
    // Node 1's close ran its release in Redis; the record is node 2's still.
    await released.done;
    expect((await listing(n1, a)).result).toMatchObject([{ id: 'edge-1', info: { connected: true, node: 'node-2' } }]);
    expect(await exec(n1, a, 'edge-1')).toMatchObject({ status: 200 });
    expect(moved.commands).toHaveLength(1);
    expect(old.commands).toHaveLength(0);
  });

  it('keeps the socket of an edge that moved back when the "replaced" of its move away arrives late', async () => {
    const [n1, n2] = nodes as [Node, Node];
    const first = await edge(n1, a, { instanceId: 'edge-1' });
    const away = await edge(n2, a, { instanceId: 'edge-1' });
    expect((await first.closed).code).toBe(CLOSE_CODES.replaced);
    const back = await edge(n1, a, { instanceId: 'edge-1' });
    expect((await away.closed).code).toBe(CLOSE_CODES.replaced);
    // Node 2's "replaced" for its claim of the move away, delivered only now (the bus gives no
    // order between nodes): node 1 claimed the edge again since, so it keeps `back` open.
    const late = await connectCluster({ url: local.server.url, node: 'node-late', heartbeatMs: 500, logger: silentLogger() });
    try {
      expect(await late.bus.request(n1.id, { kind: 'replaced', tenant: a.tenantId, instance: 'edge-1' }, EXEC_TIMEOUT_MS)).toBeNull();
    } finally {
      await late.close();
    }
    expect(await exec(n2, a, 'edge-1')).toMatchObject({ status: 200 });
    expect(back.commands).toHaveLength(1);
    expect(back.ws.readyState).toBe(back.ws.OPEN);
    expect((await listing(n2, a)).result).toMatchObject([{ id: 'edge-1', info: { connected: true, node: 'node-1' } }]);
  });
});

describe('cluster mode: Redis down', () => {
  it('serves local edges, answers 503 routing_unavailable for routed exec and listings, and heals once Redis is back', async () => {
    const [n1, n2] = nodes as [Node, Node];
    const e = await edge(n1, a, { instanceId: 'edge-1' });
    expect((await exec(n2, a, 'edge-1')).status).toBe(200);

    await local.server.kill();
    await waitUntil('node 2 sees Redis down', async () => (await exec(n2, a, 'edge-1')).status === 503);
    expect(await exec(n2, a, 'edge-1')).toEqual({
      status: 503,
      body: { code: 'routing_unavailable', message: 'routing between control-plane nodes is unavailable' },
      retryAfter: '1',
    });
    expect((await listing(n2, a)).status).toBe(503);
    // The node holding the socket still reaches it.
    expect((await exec(n1, a, 'edge-1')).status).toBe(200);

    // A restarted Redis is empty; the owner restores its records without being restarted.
    await local.server.restart();
    await waitUntil('routing works again', async () => (await exec(n2, a, 'edge-1')).status === 200);
    expect((await listing(n2, a)).result).toMatchObject([{ id: 'edge-1', info: { connected: true, node: 'node-1' } }]);
    expect(e.commands.length).toBeGreaterThanOrEqual(3);
  });

  it("restores the owner's records as soon as a Redis restarted empty is ready, without waiting for the periodic refresh", async () => {
    // A heartbeat of an hour: the periodic refresh never runs during the test, only the one on `ready`.
    const owner = await startNode('node-3', { heartbeatMs: 3_600_000 });
    const [, n2] = nodes as [Node, Node];
    const e = await edge(owner, a, { instanceId: 'edge-1' });
    expect((await exec(n2, a, 'edge-1')).status).toBe(200);

    await local.server.kill();
    await waitUntil('node 2 sees Redis down', async () => (await exec(n2, a, 'edge-1')).status === 503);
    await local.server.restart();
    await waitUntil('routing works again', async () => (await exec(n2, a, 'edge-1')).status === 200);
    expect((await listing(n2, a)).result).toMatchObject([{ id: 'edge-1', info: { connected: true, node: 'node-3' } }]);
    expect(e.commands).toHaveLength(2);
  });
});

describe('without REDIS_URL', () => {
  it('leaves info.node out of listings', async () => {
    const store = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
    const relay = await startControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: EXEC_TIMEOUT_MS, heartbeatMs: 500 });
    try {
      const page = await relay.registrations(a.tenantId, {});
      expect(page.result).toEqual([]);
      const n1 = nodes[0]!;
      await edge(n1, a, { instanceId: 'edge-1' });
      const [listed] = (await relay.registrations(a.tenantId, {})).result;
      expect(listed!.info).not.toHaveProperty('node');
      expect(listed!.info.connected).toBe(false);
    } finally {
      await relay.close();
      await store.close();
    }
  });
});
