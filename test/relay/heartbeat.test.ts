import { WebSocket } from 'ws';
import { INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { startRelayKit } from './relay-kit';
import type { RelayKit } from './relay-kit';

describe('relay heartbeat', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ heartbeatMs: 200 });
  });
  afterAll(() => kit.stop());

  it('terminates a peer that stops answering pings and keeps the ones that answer', async () => {
    const healthy = await kit.edge(kit.a, { instanceId: 'healthy' });
    const dead = await kit.edge(kit.a, { instanceId: 'dead', autoPong: false });
    let pings = 0;
    healthy.ws.on('ping', () => (pings += 1));
    // terminate() drops the TCP connection without a close frame: 1006 on the client.
    expect((await dead.closed).code).toBe(1006);
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(healthy.ws.readyState).toBe(WebSocket.OPEN);
    const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { id: string; info: { connected: boolean } }[] };
    expect(listed.result.map((r) => [r.id, r.info.connected])).toEqual([
      ['dead', false],
      ['healthy', true],
    ]);
  });
});
