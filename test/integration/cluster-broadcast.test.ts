/**
 * The tenant-wide command on a 3-node cluster (docs/reference/api.md, "Broadcast"): three
 * control-plane nodes in this process over one throwaway PostgreSQL database and one
 * throwaway Redis, real edge runtimes on different nodes, a "killed" edge (its socket open,
 * its process answering nothing: a fake that never confirms), an edge that has gone, and
 * another tenant's edge. A broadcast sent to any node reaches every edge of its tenant on
 * every node, and only those; with push on change (each node runs it, as main.ts does), a
 * directory change made on one node reaches the edges on all three with no command sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import {
  createControlPlaneApp,
  describeControlPlaneLocation,
  openControlPlaneStore,
  seedControlPlane,
  startPushOnChange,
  type ControlPlaneStore,
  type PushOnChange,
} from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { startControlPlaneRelay, type ControlPlaneRelay } from '../../src/control-plane-server';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { BROADCAST_PATH } from '../../src/relay-protocol';
import { usePostgres } from '../helpers/postgres';
import { useLocalRedis, waitUntil } from '../helpers/redis';
import { FakeEdge } from '../relay/fake-edge';
import { startEdgeNode, type EdgeHandle } from './edge-node';
import { admin, tenantFromDemo, type LogLine, type TenantCredentials } from './stack-client';

jest.setTimeout(120_000);

const EXEC_TIMEOUT_MS = 1500;
const redis = useLocalRedis();
const postgres = usePostgres();

interface Node {
  readonly id: string;
  readonly store: ControlPlaneStore;
  readonly relay: ControlPlaneRelay;
  readonly push: PushOnChange;
  readonly server: Server;
  readonly url: string;
}
interface Tenant {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
}

let dir: string;
const nodes: Node[] = [];
const realEdges: EdgeHandle[] = [];
const fakes: FakeEdge[] = [];
let demo: TenantCredentials;
let demoConnection: { connectionId: string; connectionSecret: string };
let other: Tenant;
let otherEdge: FakeEdge;

async function startNode(id: string, databaseUrl: string): Promise<Node> {
  const store = await openControlPlaneStore({ databaseUrl });
  const relay = await startControlPlaneRelay({
    store,
    logger: silentLogger(),
    execTimeoutMs: EXEC_TIMEOUT_MS,
    heartbeatMs: 60_000,
    cluster: { redisUrl: redis.server.url, nodeId: id },
  });
  const push = startPushOnChange({ store, broadcast: relay.broadcast, logger: silentLogger() });
  const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter] });
  const server = await listen(app, 0, '127.0.0.1');
  relay.attach(server);
  const node = { id, store, relay, push, server, url: baseUrl(server) };
  nodes.push(node);
  return node;
}

async function realEdge(node: Node, name: string): Promise<EdgeHandle> {
  const edge = await startEdgeNode({
    relayUrl: node.url,
    credentials: demoConnection,
    dataDir: join(dir, name),
    hostname: name,
    // Commands never need a token checked: the IdP is never asked.
    jwt: { issuer: 'http://idp.invalid', jwksUri: 'http://idp.invalid/.well-known/jwks.json', audience: 'outpost-api' },
  });
  realEdges.push(edge);
  return edge;
}

async function fake(node: Node, connection: { connectionId: string; connectionSecret: string }, instanceId: string, behaviour: 'ok' | 'never'): Promise<FakeEdge> {
  const edge = await FakeEdge.connect({ baseUrl: node.url, connectionId: connection.connectionId, secret: connection.connectionSecret, instanceId, behaviour });
  fakes.push(edge);
  return edge;
}

async function broadcast(node: Node, body: unknown, tenant: Tenant = demo) {
  const res = await fetch(`${node.url}${BROADCAST_PATH}`, {
    method: 'POST',
    headers: { 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { result: { sent: number; confirmed: number; failed: { id: string; code: string }[]; not_connected: number } } };
}

async function listed(node: Node): Promise<{ id: string; info: { connected: boolean; node?: string | null; directory_revision: number } }[]> {
  const res = await fetch(`${node.url}${INSTANCE_REGISTRATIONS_PATH}?page_size=1000`, {
    headers: { 'service-tenant-id': demo.tenantId, authorization: `basic ${demo.discoveryApiKey}` },
  });
  return ((await res.json()) as { result: Awaited<ReturnType<typeof listed>> }).result;
}

let silent: FakeEdge;
let gone: EdgeHandle;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-cluster-broadcast-'));
  const databaseUrl = await postgres.freshDatabase();
  const first = await startNode('cp-1', databaseUrl);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const seeded = await seedControlPlane(first.store, {
    policiesDir: config.policiesDir,
    directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
    dataDir: dir,
    urls: { auth_url: 'http://idp.invalid', relay_url: first.url, app_url: 'http://127.0.0.1:0' },
    database: describeControlPlaneLocation({ databaseUrl }),
  });
  if (!seeded) throw new Error('the fresh database was not seeded');
  demo = tenantFromDemo(seeded);
  demoConnection = { connectionId: seeded.connection_id, connectionSecret: seeded.connection_secret };
  const [second, third] = [await startNode('cp-2', databaseUrl), await startNode('cp-3', databaseUrl)];
  // One real edge per node, a silent one on the third, one that has gone from the second.
  await realEdge(first, 'edge-on-cp-1');
  await realEdge(second, 'edge-on-cp-2');
  await realEdge(third, 'edge-on-cp-3');
  silent = await fake(third, demoConnection, 'killed-on-cp-3', 'never');
  gone = await realEdge(second, 'gone-from-cp-2');
  await gone.stop();
  // Another tenant's edge, on the node every broadcast below is sent to.
  const keys = await first.store.tenants.create('other tenant');
  const connection = await first.store.tenants.addConnection(keys.tenantId, 'rbac');
  other = { tenantId: keys.tenantId, discoveryApiKey: keys.discoveryApiKey };
  otherEdge = await fake(first, connection, 'other-tenant-edge', 'ok');
  await waitUntil('every node sees the gone edge disconnected and the others on their nodes', async () => {
    const rows = await listed(first);
    return rows.length === 5 && rows.every((r) => r.info.connected === (r.id !== gone.instanceId));
  });
});

afterAll(async () => {
  await Promise.allSettled(fakes.map((f) => f.close()));
  await Promise.allSettled(realEdges.map((e) => e.stop()));
  for (const node of nodes) {
    const pushes = node.push.close();
    await node.relay.close();
    await pushes;
    node.server.closeAllConnections();
    await close(node.server);
    await node.store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('broadcast across a 3-node cluster', () => {
  it.each(['cp-1', 'cp-2', 'cp-3'])('sent to %s: reaches every edge of the tenant on every node, reports the killed one as failed and the gone one as not connected', async (at) => {
    const node = nodes.find((n) => n.id === at)!;
    const before = silent.commands.length;
    // The answer never waits for the killed edge beyond the deadline: it is reported as
    // edge_timeout, which the relay answers only once its deadline passes.
    const reply = await broadcast(node, { command: { sync_edge_directory: {} } });
    expect(reply).toEqual({ status: 200, body: { result: { sent: 4, confirmed: 3, failed: [{ id: 'killed-on-cp-3', code: 'edge_timeout' }], not_connected: 1 } } });
    expect(silent.commands.length).toBe(before + 1);
    // Never crosses tenants: the other tenant's edge, on the first node, heard nothing.
    expect(otherEdge.commands).toEqual([]);
  });

  it("filters on every node and the other tenant's broadcast reaches only its own edge", async () => {
    const reply = await broadcast(nodes[1]!, { command: { discovery: {} }, filter: { policy_name: 'todo' } });
    expect(reply).toEqual({ status: 200, body: { result: { sent: 0, confirmed: 0, failed: [], not_connected: 0 } } });
    const before = silent.commands.length;
    expect(await broadcast(nodes[2]!, { command: { discovery: {} } }, other)).toEqual({
      status: 200,
      body: { result: { sent: 1, confirmed: 1, failed: [], not_connected: 0 } },
    });
    expect(otherEdge.commands.map((c) => c.command)).toEqual(['discovery']);
    expect(silent.commands.length).toBe(before);
  });

  it('pushes a directory change made on one node to the edges on all three by itself (push on change)', async () => {
    const before = silent.commands.length;
    const synced = realEdges.filter((e) => e !== gone).map((e) => nextLine(e, 'directory synced', 2));
    const grant = await admin(nodes[1]!.url, demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect({ status: grant.status, body: grant.body }).toEqual({ status: 200, body: { revision: 2 } });
    expect((await Promise.all(synced)).map((line) => line.revision)).toEqual([2, 2, 2]);
    // Only edges behind on the directory: the silent one reports revision 3, so it is left alone.
    expect(silent.commands.length).toBe(before);
  });
});

/** The next `directory synced` line of `edge` at `revision`. */
function nextLine(edge: EdgeHandle, msg: string, revision: number): Promise<LogLine> {
  return new Promise((resolve) => {
    const listener = (line: LogLine) => {
      if (line.msg !== msg || line.revision !== revision) return;
      edge.logs.off('log', listener);
      resolve(line);
    };
    edge.logs.on('log', listener);
  });
}
