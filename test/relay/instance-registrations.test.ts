import { INSTANCE_REGISTRATIONS_PATH, CLOSE_CODES } from '../../src/relay';
import { EDGE_STATUS } from './fake-edge';
import { START, startRelayKit } from './relay-kit';
import type { RelayKit } from './relay-kit';
import { waitUntil } from '../helpers/wait-for';

const UNAUTHORIZED = { code: 'unauthorized', message: 'missing or invalid tenant credentials' };

async function list(kit: RelayKit, tenant = kit.a) {
  const res = await kit.call(INSTANCE_REGISTRATIONS_PATH, { tenant });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { id: string; info: Record<string, unknown> }[] }).result;
}

describe('GET /api/v2/management/control_plane/instance_registrations', () => {
  let kit: RelayKit;
  beforeEach(async () => {
    kit = await startRelayKit();
  });
  afterEach(() => kit.stop());

  it('lists the registration with every field, only for the caller tenant', async () => {
    await kit.edge(kit.a, { instanceId: 'edge-a-1' });
    await kit.edge(kit.b, { instanceId: 'edge-b-1' });
    const res = await kit.call(INSTANCE_REGISTRATIONS_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await res.json()).toEqual({
      result: [
        {
          id: 'edge-a-1',
          info: {
            connection_id: kit.a.connectionId,
            hostname: 'edge-host',
            version: '0.1.0',
            policy_name: 'rbac',
            policy_digest: EDGE_STATUS.policy_digest,
            directory_revision: 3,
            connected: true,
            connected_at: new Date(START).toISOString(),
            last_seen: new Date(START).toISOString(),
            // Nothing pushed and no directory for this tenant: the edge's digest is not latest.
            latest_policy_digest: null,
            policy_drift: true,
            central_directory_revision: null,
            directory_lag: 0,
          },
        },
      ],
    });
    expect((await list(kit, kit.b)).map((r) => r.id)).toEqual(['edge-b-1']);
  });

  it('lets the §4.3 usage rule find the instance id of a connection', async () => {
    await kit.edge(kit.a, { instanceId: 'edge-a-2' });
    const found = (await list(kit)).find((r) => r.info.connection_id === kit.a.connectionId);
    expect(found?.id).toBe('edge-a-2');
  });

  it('keeps status frames current and shows connected: false after a disconnect', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-a-3' });
    kit.clock.now = START + 5000;
    edge.sendJson({ type: 'status', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 9 } });
    edge.sendJson({ type: 'status', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 10 } });
    // Frames on one socket are handled in order; wait for a reply that follows the status frames.
    edge.ws.send('probe');
    expect((await edge.next()).type).toBe('error');
    expect((await list(kit))[0]?.info).toMatchObject({ directory_revision: 10, policy_digest: null, last_seen: new Date(START + 5000).toISOString() });

    kit.clock.now = START + 9000;
    await edge.close();
    await waitUntil('the relay lists the closed socket as not connected', async () => (await list(kit))[0]?.info.connected === false);
    expect((await list(kit))[0]?.info).toMatchObject({ connected: false, last_seen: new Date(START + 9000).toISOString() });
  });

  it('writes a status only when it changed: a command that changed nothing costs no write', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-a-5' });
    kit.clock.now = START + 5000;
    // The status it registered with, unchanged: last_seen stays (the heartbeat moves it).
    edge.sendJson({ type: 'status', status: EDGE_STATUS });
    edge.ws.send('probe');
    expect((await edge.next()).type).toBe('error');
    expect((await list(kit))[0]?.info).toMatchObject({ directory_revision: 3, last_seen: new Date(START).toISOString() });
    kit.clock.now = START + 7000;
    edge.sendJson({ type: 'status', status: { ...EDGE_STATUS, directory_revision: 4 } });
    edge.ws.send('probe');
    expect((await edge.next()).type).toBe('error');
    expect((await list(kit))[0]?.info).toMatchObject({ directory_revision: 4, last_seen: new Date(START + 7000).toISOString() });
  });

  it('keeps the instance id on reconnect and replaces a still-open older socket', async () => {
    const first = await kit.edge(kit.a, { instanceId: 'edge-a-4' });
    kit.clock.now = START + 1000;
    const second = await kit.edge(kit.a, { instanceId: 'edge-a-4' });
    expect(await first.closed).toEqual({ code: CLOSE_CODES.replaced, reason: 'replaced by a newer connection' });
    // The old socket's close must not mark the new connection disconnected.
    expect(await list(kit)).toEqual([expect.objectContaining({ id: 'edge-a-4', info: expect.objectContaining({ connected: true, connected_at: new Date(START + 1000).toISOString() }) })]);
    await expect(kit.relay.exec(kit.a.tenantId, 'edge-a-4', 'discovery')).resolves.toBeDefined();
    expect(second.commands).toHaveLength(1);

    await second.close();
    await waitUntil('the relay lists the closed socket as not connected', async () => (await list(kit))[0]?.info.connected === false);
    await kit.edge(kit.a, { instanceId: 'edge-a-4' });
    expect((await list(kit)).map((r) => [r.id, r.info.connected])).toEqual([['edge-a-4', true]]);
  });

  it('marks every registration disconnected when the relay restarts, and edges come back with the same id', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'edge-a-5' });
    await kit.restartRelay();
    expect((await edge.closed).code).toBe(CLOSE_CODES.goingAway);
    expect((await list(kit)).map((r) => [r.id, r.info.connected])).toEqual([['edge-a-5', false]]);
    await kit.edge(kit.a, { instanceId: 'edge-a-5' });
    expect((await list(kit)).map((r) => [r.id, r.info.connected])).toEqual([['edge-a-5', true]]);
  });

  it('returns an empty list for a tenant without edges', async () => {
    expect(await list(kit, kit.b)).toEqual([]);
  });

  it.each([
    ['no credentials', () => ({ authorization: '', 'service-tenant-id': '' })],
    ['a wrong key', () => ({ authorization: `basic ${kit.a.discoveryApiKey}x` })],
    ["another tenant's key", () => ({ authorization: `basic ${kit.b.discoveryApiKey}` })],
    ['the admin key', () => ({ authorization: `basic ${kit.a.adminApiKey}` })],
    ['no tenant header', () => ({ 'service-tenant-id': '' })],
  ])('answers 401 for %s', async (_label, headers) => {
    await kit.edge(kit.a);
    const res = await kit.call(INSTANCE_REGISTRATIONS_PATH, { headers: headers() });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="outpost"');
    expect(await res.json()).toEqual(UNAUTHORIZED);
  });

  it('accepts the RFC 7617 base64(tenant:key) form', async () => {
    await kit.edge(kit.a, { instanceId: 'edge-a-6' });
    const pair = Buffer.from(`${kit.a.tenantId}:${kit.a.discoveryApiKey}`).toString('base64');
    const res = await kit.call(INSTANCE_REGISTRATIONS_PATH, { headers: { authorization: `Basic ${pair}` } });
    expect(res.status).toBe(200);
  });
});
