/**
 * One edge session through its named states on a real socket and a real SQLite registration
 * table: awaiting-register → registering → claiming → registered → closed, with the frames each
 * state refuses, holds or drops (docs/reference/api.md, "Relay WebSocket"). The relay's part
 * (making a session live) is played by the test, so it can hold a session in `claiming`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';
import { openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { baseUrl, close } from '../../src/http';
import { silentLogger } from '../../src/observability';
import type { EdgeSession } from '../../src/relay/edge-session';
import { openRegistrationStore, type RegistrationStore } from '../../src/relay/registration-store';
import { openRelayDatabase, type RelayDatabase } from '../../src/relay/relay-database';
import { startEdgeSession } from '../../src/relay/start-edge-session';
import { waitFor, waitUntil } from '../helpers/wait-for';
import { FakeEdge } from './fake-edge';

const CONNECTION = { tenantId: 'tenant-a', connectionId: 'conn-1' };
const STATUS = { policy_name: 'rbac', policy_digest: null, directory_revision: 1 };
const register = (instanceId: string) => ({ type: 'register', instance_id: instanceId, hostname: 'h', version: '1', status: STATUS });

let dir: string;
let cp: ControlPlaneStore;
let relayDb: RelayDatabase;
let registrations: RegistrationStore;
let server: Server;
let wss: WebSocketServer;
const edges: FakeEdge[] = [];
/** The session of the next socket, and what the relay side saw of it. */
let nextSession: Promise<EdgeSession>;
let claim: Promise<void> | undefined;
let registered: EdgeSession[] = [];
let closed: EdgeSession[] = [];

function expectSession(): void {
  nextSession = new Promise((resolve) => {
    wss.once('connection', (ws) => {
      resolve(
        startEdgeSession(ws, CONNECTION, {
          registrations,
          store: relayDb.write,
          logger: silentLogger(),
          now: () => 1000,
          execTimeoutMs: 5000,
          registerTimeoutMs: 5000,
          maxPending: 4,
          onRegistered(session) {
            registered.push(session);
            return claim;
          },
          onClosed: (session) => void closed.push(session),
        }),
      );
    });
  });
}

async function connect(): Promise<{ edge: FakeEdge; session: EdgeSession }> {
  expectSession();
  const edge = await FakeEdge.connect({ baseUrl: baseUrl(server), connectionId: 'unused', secret: 'unused', register: false, behaviour: 'never' });
  edges.push(edge);
  return { edge, session: await nextSession };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-edge-session-'));
  cp = await openControlPlaneStore(join(dir, 'control-plane.db'));
  relayDb = await openRelayDatabase(cp, silentLogger());
  registrations = openRegistrationStore(relayDb.db);
  server = createServer();
  wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
beforeEach(() => {
  claim = undefined;
  registered = [];
  closed = [];
});
afterAll(async () => {
  await Promise.all(edges.map((e) => e.close()));
  wss.close();
  await close(server);
  await relayDb.close();
  await cp.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an edge session', () => {
  it('starts awaiting-register, refuses any other first frame (not_registered, 1008) and ends closed, never registered', async () => {
    const { edge, session } = await connect();
    expect(session.state).toBe('awaiting-register');
    edge.sendJson({ type: 'status', status: STATUS });
    expect(await edge.next()).toEqual({ type: 'error', code: 'not_registered', message: 'the first frame must be register' });
    expect(await edge.closed).toEqual({ code: 1008, reason: 'not registered' });
    await waitUntil('the close', () => closed.includes(session));
    expect([session.state, session.key, registered]).toEqual(['closed', undefined, []]);
  });

  it('holds the frames behind register until the edge heard registered, then serves them in order: a second register is refused, the socket stays open', async () => {
    let release!: () => void;
    claim = new Promise((resolve) => (release = resolve));
    const { edge, session } = await connect();
    edge.sendJson(register('held-edge'));
    edge.sendJson({ type: 'status', status: { ...STATUS, directory_revision: 9 } });
    edge.sendJson(register('held-edge'));
    // A bad frame is answered in every state: once it is, the three before it have arrived.
    edge.ws.send('not json');
    expect(await edge.next()).toMatchObject({ type: 'error', code: 'bad_frame' });
    await waitUntil('the claim', () => session.state === 'claiming');
    expect(session.key).toEqual({ tenantId: CONNECTION.tenantId, instanceId: 'held-edge' });
    expect((await registrations.get(session.key!))?.directoryRevision).toBe(1);
    release();
    expect(await edge.next()).toEqual({ type: 'registered', instance_id: 'held-edge' });
    expect(await edge.next()).toEqual({ type: 'error', code: 'already_registered', message: 'this connection has already registered' });
    await waitFor('the held status', async () => ((await registrations.get(session.key!))?.directoryRevision === 9 ? true : undefined));
    expect([session.state, registered]).toEqual(['registered', [session]]);
    expect(edge.ws.readyState).toBe(edge.ws.OPEN);
  });

  it('refuses anything after close: commands fail 409 instance_disconnected, and it keeps the key it was registered as for its disconnect write', async () => {
    const { edge, session } = await connect();
    edge.sendJson(register('closing-edge'));
    expect(await edge.next()).toEqual({ type: 'registered', instance_id: 'closing-edge' });
    const waiting = session.send('discovery').catch((err: unknown) => err);
    expect(await edge.next()).toMatchObject({ type: 'command', command: 'discovery' });
    await edge.close();
    await waitUntil('the close', () => closed.includes(session));
    expect([session.state, session.key]).toEqual(['closed', { tenantId: CONNECTION.tenantId, instanceId: 'closing-edge' }]);
    const disconnected = { status: 409, code: 'instance_disconnected' };
    expect(await waiting).toMatchObject(disconnected);
    await expect(session.send('discovery')).rejects.toMatchObject(disconnected);
    await expect(session.sample()).rejects.toMatchObject(disconnected);
    await expect(session.tryDecision({ principal: 'p', action: 'GET', resource: { type: 'Resource', id: 'x' } })).rejects.toMatchObject(disconnected);
    expect(await session.record('disconnect', (key) => registrations.markDisconnected(key, 2000))).toBe(true);
    expect((await registrations.get(session.key!))?.connected).toBe(false);
  });

  it('never becomes registered when its socket closes while it is being claimed: the edge hears nothing, the session stays closed', async () => {
    let release!: () => void;
    claim = new Promise((resolve) => (release = resolve));
    const { edge, session } = await connect();
    edge.sendJson(register('gone-edge'));
    await waitUntil('the claim', () => session.state === 'claiming');
    await edge.close();
    await waitUntil('the close', () => closed.includes(session));
    release();
    await claim;
    expect([session.state, session.key?.instanceId, registered]).toEqual(['closed', 'gone-edge', [session]]);
  });
});
