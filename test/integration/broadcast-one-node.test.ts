/**
 * The tenant-wide command on one control-plane node (docs/reference/api.md, "Broadcast") with
 * real edge runtimes, as cluster-broadcast.test.ts does on three: a real SQLite store, two
 * real edges, a "killed" edge (its socket open, its process answering nothing: a fake that
 * never confirms), a real edge that has gone, and another tenant's edge. Push on change is not
 * started, so only the broadcast moves the edges.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createControlPlaneApp, openControlPlaneStore, seedControlPlane, type ControlPlaneStore } from '../../src/control-plane';
import { startControlPlaneRelay, type ControlPlaneRelay } from '../../src/control-plane-server';
import { signedImagePushCheck } from '../../src/signing-keys';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { BROADCAST_PATH } from '../../src/relay-protocol';
import { waitUntil } from '../helpers/redis';
import { FakeEdge } from '../relay/fake-edge';
import { startEdgeNode, type EdgeHandle } from './edge-node';
import { admin, registrations, tenantFromDemo, type TenantCredentials } from './stack-client';

jest.setTimeout(60_000);

const EXEC_TIMEOUT_MS = 1500;

let dir: string;
let store: ControlPlaneStore;
let relay: ControlPlaneRelay;
let server: Server;
let url: string;
let demo: TenantCredentials;
let other: { tenantId: string; discoveryApiKey: string };
let otherEdge: FakeEdge;
let silent: FakeEdge;
let gone: EdgeHandle;
const realEdges: EdgeHandle[] = [];
const fakes: FakeEdge[] = [];

async function broadcast(body: unknown, tenant: { tenantId: string; discoveryApiKey: string } = demo) {
  const res = await fetch(`${url}${BROADCAST_PATH}`, {
    method: 'POST',
    headers: { 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

async function realEdge(name: string, credentials: { connectionId: string; connectionSecret: string }): Promise<EdgeHandle> {
  const edge = await startEdgeNode({
    relayUrl: url,
    credentials,
    dataDir: join(dir, name),
    hostname: name,
    // Commands never need a token checked: the IdP is never asked.
    jwt: { issuer: 'http://idp.invalid', jwksUri: 'http://idp.invalid/.well-known/jwks.json', audience: 'outpost-api' },
  });
  realEdges.push(edge);
  return edge;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-broadcast-one-node-'));
  store = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
  relay = await startControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: EXEC_TIMEOUT_MS, heartbeatMs: 60_000 });
  server = await listen(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter] }), 0, '127.0.0.1');
  relay.attach(server);
  url = baseUrl(server);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const seeded = await seedControlPlane(store, {
    policiesDir: config.policiesDir,
    directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
    dataDir: dir,
    urls: { auth_url: 'http://idp.invalid', relay_url: url, app_url: 'http://127.0.0.1:0' },
  });
  if (!seeded) throw new Error('the fresh store was not seeded');
  demo = tenantFromDemo(seeded);
  const connection = { connectionId: seeded.connection_id, connectionSecret: seeded.connection_secret };
  await realEdge('edge-1', connection);
  await realEdge('edge-2', connection);
  silent = await FakeEdge.connect({ baseUrl: url, connectionId: connection.connectionId, secret: connection.connectionSecret, instanceId: 'killed-edge', behaviour: 'never' });
  fakes.push(silent);
  gone = await realEdge('gone-edge', connection);
  await gone.stop();
  const keys = await store.tenants.create('other tenant');
  const otherConnection = await store.tenants.addConnection(keys.tenantId, 'rbac');
  other = { tenantId: keys.tenantId, discoveryApiKey: keys.discoveryApiKey };
  otherEdge = await FakeEdge.connect({ baseUrl: url, connectionId: otherConnection.connectionId, secret: otherConnection.connectionSecret, instanceId: 'other-tenant-edge' });
  fakes.push(otherEdge);
  await waitUntil('the relay sees the gone edge disconnected and the others connected', async () => {
    const rows = await registrations(url, demo);
    return rows.length === 4 && rows.every((r) => r.info.connected === (r.id !== gone.instanceId));
  });
});

afterAll(async () => {
  await Promise.allSettled(fakes.map((f) => f.close()));
  await Promise.allSettled(realEdges.map((e) => e.stop()));
  await relay.close();
  server.closeAllConnections();
  await close(server);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('broadcast on one node, real edges', () => {
  it('brings every real edge to a new directory revision, reports the killed edge as failed and the gone one as not connected, within its deadline, and only in its tenant', async () => {
    const grant = await admin(url, demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect({ status: grant.status, body: grant.body }).toEqual({ status: 200, body: { revision: 2 } });
    const reply = await broadcast({ command: { sync_edge_directory: {} } });
    // Within its deadline: the killed edge is reported as edge_timeout, which the relay answers
    // only when its deadline passes, in the same answer as the confirmed ones.
    expect(reply).toEqual({ status: 200, body: { result: { sent: 3, confirmed: 2, failed: [{ id: 'killed-edge', code: 'edge_timeout' }], not_connected: 1 } } });
    // Confirmed means synced: each real edge's confirmation carried revision 2, which the relay
    // stores off the request path (so waited for, bounded).
    const live = realEdges.filter((e) => e !== gone).map((e) => e.instanceId);
    await waitUntil('both real edges listed at directory revision 2', async () => {
      const rows = await registrations(url, demo);
      return rows.filter((r) => live.includes(r.id) && r.info.directory_revision === 2).length === 2;
    });
    expect(silent.commands.map((c) => c.command)).toEqual(['sync_edge_directory']);
    expect(otherEdge.commands).toEqual([]);
  });

  it("the other tenant's broadcast reaches its own edge only", async () => {
    const before = silent.commands.length;
    expect(await broadcast({ command: { discovery: {} } }, other)).toEqual({ status: 200, body: { result: { sent: 1, confirmed: 1, failed: [], not_connected: 0 } } });
    expect(otherEdge.commands.map((c) => c.command)).toEqual(['discovery']);
    expect(silent.commands.length).toBe(before);
  });
});
