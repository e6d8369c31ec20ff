import { WebSocket } from 'ws';
import { MAX_FRAME_BYTES } from '../../src/relay-protocol';
import { CLOSE_CODES, MAX_BAD_FRAMES } from '../../src/relay';
import { basic, refusedUpgrade, relayUrl } from './fake-edge';
import { startRelayKit } from './relay-kit';
import type { RelayKit } from './relay-kit';

const UNAUTHORIZED = { code: 'unauthorized', message: 'missing or invalid connection credentials' };

describe('relay edge socket', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ registerTimeoutMs: 200 });
  });
  afterAll(() => kit.stop());

  describe('authentication at the upgrade (401 before any WebSocket exists)', () => {
    it.each([
      ['no Authorization header', () => ({})],
      ['a wrong secret', () => ({ authorization: basic(kit.a.connectionId, `${kit.a.secret}x`) })],
      ['an unknown connection id', () => ({ authorization: basic('no-such-connection', kit.a.secret) })],
      ["another connection's secret", () => ({ authorization: basic(kit.a.connectionId, kit.b.secret) })],
      ['a Bearer scheme', () => ({ authorization: `Bearer ${kit.a.secret}` })],
      ['malformed base64', () => ({ authorization: 'Basic %%%%' })],
      ['no colon in the credential', () => ({ authorization: `Basic ${Buffer.from(kit.a.connectionId).toString('base64')}` })],
    ])('refuses %s', async (_label, headers) => {
      const answer = await refusedUpgrade(relayUrl(kit.url), headers());
      expect(answer.status).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Basic realm="outpost-relay"');
      expect(answer.body).toEqual(UNAUTHORIZED);
      expect(answer.opened).toBe(false);
    });

    it('answers 404 for an upgrade on another path', async () => {
      const answer = await refusedUpgrade(`${kit.url.replace('http', 'ws')}/api/v2/relay/other`, {
        authorization: basic(kit.a.connectionId, kit.a.secret),
      });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ code: 'not_found', message: 'no WebSocket endpoint at this path' });
    });

    it('accepts a lower-case basic scheme and a query string on the path', async () => {
      const ws = new WebSocket(`${relayUrl(kit.url)}?v=1`, {
        headers: { authorization: basic(kit.a.connectionId, kit.a.secret).replace('Basic', 'basic') },
      });
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
      ws.close();
      expect((await new Promise<number>((resolve) => ws.once('close', resolve))) ).toBe(1005);
    });
  });

  describe('frames', () => {
    it('closes a connection that does not register in time (1008)', async () => {
      const edge = await kit.edge(kit.a, { register: false });
      expect(await edge.closed).toEqual({ code: CLOSE_CODES.policyViolation, reason: 'register timeout' });
    });

    it('refuses any first frame other than register', async () => {
      const edge = await kit.edge(kit.a, { register: false });
      edge.sendJson({ type: 'status', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 0 } });
      expect(await edge.next()).toEqual({ type: 'error', code: 'not_registered', message: 'the first frame must be register' });
      expect(await edge.closed).toEqual({ code: 1008, reason: 'not registered' });
    });

    it('answers bad_frame to malformed frames and closes after too many', async () => {
      const edge = await kit.edge(kit.a);
      const bad = ['not json', '{"type":"nope"}', '{"type":"status","status":{}}', '[]', 'null', '{"type":"register"}'];
      expect(bad.length).toBe(MAX_BAD_FRAMES + 1);
      for (const frame of bad.slice(0, MAX_BAD_FRAMES)) {
        edge.ws.send(frame);
        expect(await edge.next()).toEqual({ type: 'error', code: 'bad_frame', message: 'the frame is not JSON or not a known message' });
      }
      expect(edge.ws.readyState).toBe(WebSocket.OPEN);
      edge.ws.send(Buffer.from('{"type":"status"}'), { binary: true });
      expect((await edge.next()).type).toBe('error');
      expect(await edge.closed).toEqual({ code: 1008, reason: 'too many bad frames' });
    });

    it('closes with 1009 on a frame larger than MAX_FRAME_BYTES', async () => {
      const edge = await kit.edge(kit.a);
      edge.ws.send('x'.repeat(MAX_FRAME_BYTES + 1));
      expect((await edge.closed).code).toBe(1009);
    });

    it('answers unknown_request for a result nobody waits for, and already_registered for a second register', async () => {
      const edge = await kit.edge(kit.a);
      edge.sendJson({ type: 'command_result', request_id: 'nope', ok: true, status: { policy_name: 'rbac', policy_digest: null, directory_revision: 1 } });
      expect(await edge.next()).toEqual({ type: 'error', code: 'unknown_request', message: 'no command is waiting for this request id' });
      edge.sendJson({ type: 'register', instance_id: edge.instanceId, hostname: 'h', version: '1', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 1 } });
      expect(await edge.next()).toEqual({ type: 'error', code: 'already_registered', message: 'this connection has already registered' });
      expect(edge.ws.readyState).toBe(WebSocket.OPEN);
    });

    it('gives each tenant its own instance ids: another tenant registering the same id learns nothing and changes nothing', async () => {
      const first = await kit.edge(kit.a, { instanceId: 'shared-instance-id' });
      const second = await kit.edge(kit.b, { instanceId: 'shared-instance-id' });
      expect(second.ws.readyState).toBe(WebSocket.OPEN);
      await expect(kit.relay.exec(kit.a.tenantId, 'shared-instance-id', 'discovery')).resolves.toMatchObject({ directory_revision: 7 });
      expect(first.commands).toHaveLength(1);
      expect(second.commands).toHaveLength(0);
      await expect(kit.relay.exec(kit.b.tenantId, 'shared-instance-id', 'discovery')).resolves.toMatchObject({ directory_revision: 7 });
      expect(second.commands).toHaveLength(1);
    });

    it('keeps an instance id bound to its connection: another connection of the same tenant cannot take it over', async () => {
      const real = await kit.edge(kit.a, { instanceId: 'bound-instance' });
      const other = await kit.store.tenants.addConnection(kit.a.tenantId, 'rbac');
      const intruder = await kit.edge(
        { ...kit.a, connectionId: other.connectionId, secret: other.connectionSecret },
        { register: false, instanceId: 'bound-instance' },
      );
      intruder.sendJson({ type: 'register', instance_id: 'bound-instance', hostname: 'h', version: '1', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 0 } });
      expect(await intruder.next()).toEqual({
        type: 'error',
        code: 'instance_bound',
        message: 'this instance id is registered by another edge connection of the tenant; an operator must release it first',
      });
      expect(await intruder.closed).toEqual({ code: CLOSE_CODES.instanceBound, reason: 'instance bound to another connection' });
      // Every command still reaches the real edge, and only it confirms.
      for (let i = 0; i < 5; i++) await kit.relay.exec(kit.a.tenantId, 'bound-instance', 'discovery');
      expect(real.commands).toHaveLength(5);
      expect(intruder.commands).toHaveLength(0);
    });
  });
});
