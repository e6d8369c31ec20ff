/**
 * A tenant's Discovery API key rotated on one control-plane node stops working on every node
 * at once (docs/architecture.md, "Cluster mode: Redis keys and channels", "Tenant keys are not
 * cached"): three nodes in this process over one throwaway PostgreSQL database and one
 * throwaway Redis. Each node has accepted the old key many times before the rotation, so a
 * per-node cache of the check would still let it in; the first call after the rotation's
 * commit, on each node, with no waiting, is refused.
 */
import type { Server } from 'node:http';
import { createControlPlaneApp, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { startControlPlaneRelay } from '../../src/control-plane-server';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { INSTANCE_REGISTRATIONS_PATH, type Relay } from '../../src/relay';
import { usePostgres } from '../helpers/postgres';
import { useLocalRedis } from '../helpers/redis';

jest.setTimeout(120_000);

const redis = useLocalRedis();
const postgres = usePostgres();
const UNAUTHORIZED = { code: 'unauthorized', message: 'missing or invalid tenant credentials' };

interface Node {
  readonly store: ControlPlaneStore;
  readonly relay: Relay;
  readonly server: Server;
  readonly url: string;
}
const nodes: Node[] = [];
let tenantId: string;

async function startNode(id: string, databaseUrl: string): Promise<Node> {
  const store = await openControlPlaneStore({ databaseUrl });
  const relay = await startControlPlaneRelay({
    store,
    logger: silentLogger(),
    execTimeoutMs: 1000,
    heartbeatMs: 60_000,
    cluster: { redisUrl: redis.server.url, nodeId: id },
  });
  const server = await listen(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter] }), 0, '127.0.0.1');
  relay.attach(server);
  const node = { store, relay, server, url: baseUrl(server) };
  nodes.push(node);
  return node;
}

/** Lists the tenant's registrations on `node` with `key`, raw or as RFC 7617 `base64(tenant:key)`. */
async function list(node: Node, key: string, form: 'raw' | 'rfc7617' = 'raw') {
  const credential = form === 'raw' ? key : Buffer.from(`${tenantId}:${key}`).toString('base64');
  const res = await fetch(`${node.url}${INSTANCE_REGISTRATIONS_PATH}`, { headers: { 'service-tenant-id': tenantId, authorization: `Basic ${credential}` } });
  return { status: res.status, body: (await res.json()) as unknown, challenge: res.headers.get('www-authenticate') };
}

beforeAll(async () => {
  const databaseUrl = await postgres.freshDatabase();
  for (const id of ['cp-1', 'cp-2', 'cp-3']) await startNode(id, databaseUrl);
  tenantId = (await nodes[0]!.store.tenants.create('rotating tenant')).tenantId;
});

afterAll(async () => {
  for (const node of nodes) {
    await node.relay.close();
    node.server.closeAllConnections();
    await close(node.server);
    await node.store.close();
  }
});

describe('a Discovery API key rotated on one node of a 3-node cluster', () => {
  it('is refused on every node by the first call after the rotation, in both credential forms, and the new key works everywhere', async () => {
    let key = await nodes[0]!.store.tenants.rotateKey(tenantId, 'discovery');
    for (let round = 0; round < 3; round += 1) {
      const rotatingNode = nodes[round]!;
      // Every node accepts the current key, many times over, in both forms.
      for (const node of nodes) {
        for (let i = 0; i < 5; i += 1) {
          expect((await list(node, key)).status).toBe(200);
          expect((await list(node, key, 'rfc7617')).status).toBe(200);
        }
      }
      const old = key;
      key = await rotatingNode.store.tenants.rotateKey(tenantId, 'discovery');
      // No waiting: the rotation has committed, and every node reads the key's hash per call.
      for (const node of nodes) {
        for (const form of ['raw', 'rfc7617'] as const) {
          expect(await list(node, old, form)).toEqual({ status: 401, body: UNAUTHORIZED, challenge: 'Basic realm="outpost"' });
        }
        expect(await list(node, key)).toEqual({ status: 200, body: { result: [] }, challenge: null });
        expect((await list(node, key, 'rfc7617')).status).toBe(200);
      }
    }
  });
});
