import { WebSocket } from 'ws';
import { CLOSE_CODES, FRAME_RATE, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { basic, refusedUpgrade, relayUrl } from './fake-edge';
import { startRelayKit, type RelayKit } from './relay-kit';

const STATUS = { policy_name: 'rbac', policy_digest: null, directory_revision: 0 };

interface Listed {
  result: { id: string; info: { hostname: string; directory_revision: number } }[];
}

/** What one edge connection credential can do to the relay, and where it stops. */
describe('relay limits per edge connection', () => {
  let kit: RelayKit;
  beforeEach(async () => {
    kit = await startRelayKit({ maxSocketsPerConnection: 3 });
  });
  afterEach(() => kit.stop());

  it('refuses sockets past the per-connection cap at the upgrade with 429, and admits one again after a close', async () => {
    const open = [await kit.edge(kit.a), await kit.edge(kit.a), await kit.edge(kit.a)];
    const refused = await refusedUpgrade(relayUrl(kit.url), { authorization: basic(kit.a.connectionId, kit.a.secret) });
    expect(refused).toMatchObject({
      status: 429,
      body: { code: 'too_many_connections', message: 'this edge connection has too many open sockets; close one first' },
      opened: false,
    });
    // Another tenant's connection is not affected.
    await expect(kit.edge(kit.b)).resolves.toBeDefined();
    await open[0]!.close();
    let admitted = false;
    for (let attempt = 0; attempt < 50 && !admitted; attempt++) {
      admitted = await kit.edge(kit.a).then(
        () => true,
        () => false,
      );
    }
    expect(admitted).toBe(true);
  });

  it('closes a socket that floods frames with 1008', async () => {
    const edge = await kit.edge(kit.a);
    const frame = JSON.stringify({ type: 'status', status: STATUS });
    for (let i = 0; i < FRAME_RATE.burst * 10; i++) edge.ws.send(frame);
    expect(await edge.closed).toEqual({ code: CLOSE_CODES.policyViolation, reason: 'frame rate exceeded' });
  });

  it('never counts the results of commands the relay sent: a busy edge is not a flood', async () => {
    const edge = await kit.edge(kit.a);
    const total = FRAME_RATE.burst * 2;
    for (let sent = 0; sent < total; sent += 16) {
      await Promise.all(Array.from({ length: 16 }, () => kit.relay.exec(kit.a.tenantId, edge.instanceId, 'discovery')));
    }
    expect(edge.commands.length).toBeGreaterThanOrEqual(total);
    expect(edge.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('ignores a result for a request id it never sent: the stored status stays', async () => {
    const edge = await kit.edge(kit.a);
    edge.sendJson({ type: 'command_result', request_id: 'never-sent', ok: true, status: { ...STATUS, directory_revision: 99 } });
    expect(await edge.next()).toMatchObject({ type: 'error', code: 'unknown_request' });
    const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as Listed;
    expect(listed.result.find((r) => r.id === edge.instanceId)?.info.directory_revision).toBe(3);
  });

  it.each([
    ['an instance id with a right-to-left override', { instance_id: 'edge\u202Eevil' }],
    ['an instance id with a space', { instance_id: 'edge one' }],
    ['an instance id with a newline', { instance_id: 'edge\n1' }],
    ['a hostname with an escape sequence', { hostname: 'host\u001b[31m' }],
    ['a hostname with a zero-width joiner', { hostname: 'ho\u200Dst' }],
    ['a version with a C1 control', { version: '1.0\u0085' }],
  ])('refuses a register frame with %s as a bad frame and registers nothing', async (_label, fields) => {
    const edge = await kit.edge(kit.a, { register: false });
    edge.sendJson({ type: 'register', instance_id: 'clean-id', hostname: 'h', version: '1', status: STATUS, ...fields });
    expect(await edge.next()).toMatchObject({ type: 'error', code: 'bad_frame' });
    expect(edge.ws.readyState).toBe(WebSocket.OPEN);
    const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as Listed;
    expect(listed.result).toEqual([]);
  });

  it('accepts ordinary ids and hostnames, including non-Latin letters in a hostname', async () => {
    const edge = await kit.edge(kit.a, { instanceId: '3f2b9c1e-0d4a-4e7b-9a1c-5e6f7a8b9c0d' });
    expect(edge.ws.readyState).toBe(WebSocket.OPEN);
    const other = await kit.edge(kit.a, { register: false });
    other.sendJson({ type: 'register', instance_id: 'edge-2.prod:a', hostname: 'hôte-ünïcode', version: '1.2.3', status: STATUS });
    expect(await other.next()).toEqual({ type: 'registered', instance_id: 'edge-2.prod:a' });
  });
});
