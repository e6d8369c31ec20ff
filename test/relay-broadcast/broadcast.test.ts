/**
 * The tenant-wide command on one relay node (docs/reference/api.md, "Broadcast"): real
 * WebSocket edges (fakes that confirm, fail, never answer or are gone), a real store. Every
 * test starts its own relay, so the counts are exact.
 */
import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { readPolicyFolder } from '../../src/policy';
import { INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { BROADCAST_LIMITS, BROADCAST_PATH } from '../../src/relay-protocol';
import { waitUntil } from '../helpers/redis';
import { EDGE_STATUS, type FakeEdge } from '../relay/fake-edge';
import { startRelayKit, type RelayKit } from '../relay/relay-kit';

const EXEC_TIMEOUT_MS = 400;
const discoveryAll = { command: { discovery: {} } };

let kit: RelayKit;
afterEach(() => kit?.stop());

async function start(options: Parameters<typeof startRelayKit>[0] = {}): Promise<RelayKit> {
  kit = await startRelayKit({ execTimeoutMs: EXEC_TIMEOUT_MS, ...options });
  return kit;
}

async function broadcast(body: unknown, tenant = kit.a) {
  const res = await kit.call(BROADCAST_PATH, { tenant, body });
  return { status: res.status, body: (await res.json()) as unknown, cacheControl: res.headers.get('cache-control'), retryAfter: res.headers.get('retry-after') };
}

/** Waits until the relay has seen `edge`'s socket close (the listing says so). */
async function disconnected(edge: FakeEdge): Promise<void> {
  await edge.close();
  await waitUntil('the relay saw the edge go', async () => {
    const listed = (await (await kit.call(`${INSTANCE_REGISTRATIONS_PATH}?page_size=1000`)).json()) as { result: { id: string; info: { connected: boolean } }[] };
    return listed.result.some((r) => r.id === edge.instanceId && !r.info.connected);
  });
}

describe('POST /api/v2/management/control_plane/broadcast (one node)', () => {
  it.each(['discovery', 'sync_edge_directory'] as const)('sends %s to every connected edge of the tenant and answers once all confirmed', async (name) => {
    await start();
    const edges = [await kit.edge(kit.a), await kit.edge(kit.a), await kit.edge(kit.a)];
    const other = await kit.edge(kit.b);
    const reply = await broadcast({ command: { [name]: {} } });
    expect(reply).toEqual({ status: 200, body: { result: { sent: 3, confirmed: 3, failed: [], not_connected: 0 } }, cacheControl: 'no-store', retryAfter: null });
    for (const edge of edges) expect(edge.commands.map((c) => c.command)).toEqual([name]);
    // Never crosses tenants: tenant B's edge heard nothing, and B's own broadcast reaches only it.
    expect(other.commands).toEqual([]);
    expect((await broadcast(discoveryAll, kit.b)).body).toEqual({ result: { sent: 1, confirmed: 1, failed: [], not_connected: 0 } });
    for (const edge of edges) expect(edge.commands).toHaveLength(1);
  });

  it("reports an edge that failed with the edge's code, one that never answers as edge_timeout, one that is gone as not connected", async () => {
    await start();
    const ok = await kit.edge(kit.a, { instanceId: 'edge-1-ok' });
    const failing = await kit.edge(kit.a, { instanceId: 'edge-2-failing', behaviour: 'error', errorCode: 'sync_failed' });
    const silent = await kit.edge(kit.a, { instanceId: 'edge-3-silent', behaviour: 'never' });
    const dying = await kit.edge(kit.a, { instanceId: 'edge-4-dying', behaviour: 'close' });
    await disconnected(await kit.edge(kit.a, { instanceId: 'edge-5-gone' }));
    const reply = await broadcast(discoveryAll);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      result: {
        sent: 4,
        confirmed: 1,
        failed: [
          { id: 'edge-2-failing', code: 'sync_failed' },
          { id: 'edge-3-silent', code: 'edge_timeout' },
          { id: 'edge-4-dying', code: 'instance_disconnected' },
        ],
        not_connected: 1,
      },
    });
    expect([ok, failing, silent, dying].map((e) => e.commands.length)).toEqual([1, 1, 1, 1]);
  });

  it('filters by policy_name and by stale_only', async () => {
    await start();
    const rbac = readPolicyFolder(join(findProjectRoot(), 'policies', 'rbac'));
    const pushed = await kit.store.images.push(kit.a.tenantId, rbac);
    const current = await kit.edge(kit.a, { instanceId: 'rbac-current', status: { ...EDGE_STATUS, policy_digest: pushed.digest } });
    const stale = await kit.edge(kit.a, { instanceId: 'rbac-stale' });
    const todoConnection = await kit.store.tenants.addConnection(kit.a.tenantId, 'todo');
    const todo = await kit.edge(kit.a, {
      instanceId: 'todo-edge',
      connectionId: todoConnection.connectionId,
      secret: todoConnection.connectionSecret,
      status: { ...EDGE_STATUS, policy_name: 'todo' },
    });

    expect((await broadcast({ ...discoveryAll, filter: { policy_name: 'todo' } })).body).toEqual({ result: { sent: 1, confirmed: 1, failed: [], not_connected: 0 } });
    expect([current, stale, todo].map((e) => e.commands.length)).toEqual([0, 0, 1]);

    // The todo connection's policy has no image here: its edge is stale as well, but filtered out by name.
    expect((await broadcast({ ...discoveryAll, filter: { policy_name: 'rbac', stale_only: true } })).body).toEqual({
      result: { sent: 1, confirmed: 1, failed: [], not_connected: 0 },
    });
    expect([current, stale, todo].map((e) => e.commands.length)).toEqual([0, 1, 1]);

    expect((await broadcast({ ...discoveryAll, filter: { policy_name: 'opa' } })).body).toEqual({ result: { sent: 0, confirmed: 0, failed: [], not_connected: 0 } });

    // Push on change narrows stale to what changed: this tenant has no directory, so none lags.
    expect(await kit.relay.broadcast(kit.a.tenantId, 'sync_edge_directory', { staleOnly: 'directory' })).toEqual({ sent: 0, confirmed: 0, failed: [], not_connected: 0 });
    expect(await kit.relay.broadcast(kit.a.tenantId, 'discovery', { policyName: 'rbac', staleOnly: 'policy' })).toEqual({ sent: 1, confirmed: 1, failed: [], not_connected: 0 });
    expect([current, stale, todo].map((e) => e.commands.length)).toEqual([0, 2, 1]);
  });

  it(`answers 429 beyond ${BROADCAST_LIMITS.maxConcurrentPerTenant} broadcasts of one tenant at once, and serves another tenant meanwhile`, async () => {
    await start({ execTimeoutMs: 2000 });
    const silent = await kit.edge(kit.a, { behaviour: 'never' });
    await kit.edge(kit.b);
    const running = Array.from({ length: BROADCAST_LIMITS.maxConcurrentPerTenant }, () => broadcast(discoveryAll));
    await waitUntil('every running broadcast reached the edge', () => silent.commands.length === BROADCAST_LIMITS.maxConcurrentPerTenant);
    const refused = await broadcast(discoveryAll);
    expect(refused).toEqual({
      status: 429,
      body: { code: 'too_many_broadcasts', message: `this tenant already runs ${BROADCAST_LIMITS.maxConcurrentPerTenant} broadcasts` },
      cacheControl: null,
      retryAfter: '1',
    });
    expect((await broadcast(discoveryAll, kit.b)).status).toBe(200);
    for (const done of await Promise.all(running)) {
      expect(done.body).toEqual({ result: { sent: 1, confirmed: 0, failed: [{ id: silent.instanceId, code: 'edge_timeout' }], not_connected: 0 } });
    }
  });

  it('answers 409 and sends nothing when more connected edges match than one broadcast may reach', async () => {
    await start({ maxBroadcastEdges: 2 });
    const edges = [await kit.edge(kit.a), await kit.edge(kit.a), await kit.edge(kit.a)];
    expect(await broadcast(discoveryAll)).toEqual({
      status: 409,
      body: { code: 'too_many_edges', message: 'more than 2 connected edges match; narrow the broadcast with filter.policy_name or filter.stale_only' },
      cacheControl: null,
      retryAfter: null,
    });
    expect(edges.map((e) => e.commands.length)).toEqual([0, 0, 0]);
  });

  describe('exec\'s error contract: 401 before the body, then 400 / 413', () => {
    it.each([
      ['not JSON', '{"command":', 'bad_request', 'the request body is not valid JSON'],
      ['no command', {}, 'bad_request', '"command" must be an object with exactly one command member'],
      ['an unknown command', { command: { reboot: {} } }, 'unknown_command', 'unknown command "reboot"; expected discovery or sync_edge_directory'],
      ['a string filter', { ...discoveryAll, filter: 'all' }, 'bad_request', '"filter" must be an object'],
      ['an unknown filter member', { ...discoveryAll, filter: { policy: 'rbac' } }, 'bad_request', 'unknown filter member "policy"; expected policy_name or stale_only'],
      ['an empty policy_name', { ...discoveryAll, filter: { policy_name: '' } }, 'bad_request', '"filter.policy_name" must be a policy name (1-128 characters)'],
      ['a string stale_only', { ...discoveryAll, filter: { stale_only: 'yes' } }, 'bad_request', '"filter.stale_only" must be true or false'],
    ])('answers 400 for %s and sends nothing', async (_label, body, code, message) => {
      await start();
      const edge = await kit.edge(kit.a);
      const res = await kit.call(BROADCAST_PATH, { body });
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 400, body: { code, message } });
      expect(edge.commands).toEqual([]);
    });

    it('answers 400 for a non-JSON content type and 413 for a body over 4 kB', async () => {
      await start();
      const typed = await kit.call(BROADCAST_PATH, { body: JSON.stringify(discoveryAll), headers: { 'content-type': 'text/plain' } });
      expect({ status: typed.status, body: await typed.json() }).toEqual({ status: 400, body: { code: 'bad_request', message: 'content-type must be application/json' } });
      const large = await kit.call(BROADCAST_PATH, { body: { ...discoveryAll, padding: 'x'.repeat(6 * 1024) } });
      expect({ status: large.status, body: await large.json() }).toEqual({ status: 413, body: { code: 'payload_too_large', message: 'the request body is too large' } });
    });

    it.each([
      ['no credentials and a malformed body', 'none', '{"command":'],
      ["tenant B's key with tenant A's id and an oversized body", 'b-key', JSON.stringify({ padding: 'x'.repeat(64 * 1024) })],
    ])('answers 401 for %s and sends nothing', async (_label, credential, body) => {
      await start();
      const edge = await kit.edge(kit.a);
      const res = await kit.call(BROADCAST_PATH, { body, headers: { authorization: credential === 'b-key' ? `basic ${kit.b.discoveryApiKey}` : '' } });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="outpost"');
      expect(await res.json()).toEqual({ code: 'unauthorized', message: 'missing or invalid tenant credentials' });
      expect(edge.commands).toEqual([]);
    });
  });
});
