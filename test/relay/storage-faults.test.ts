import Database from 'better-sqlite3';
import { CLOSE_CODES, EXEC_PATH, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { capturingLogger, type LogLine } from '../helpers/capturing-logger';
import { waitUntil } from '../helpers/redis';
import { startRelayKit, type RelayKit } from './relay-kit';

/**
 * A database the relay cannot write (another process holds the write lock for longer than
 * the relay will wait) must cost only the socket whose write failed: the control plane
 * keeps running, other edges keep answering, and the event loop is never held for seconds.
 */
describe('relay with a write-locked database', () => {
  let kit: RelayKit;
  let locker: Database.Database;
  let lines: LogLine[];
  beforeEach(async () => {
    const captured = capturingLogger();
    lines = captured.lines;
    kit = await startRelayKit({ logger: captured.logger });
    locker = new Database(kit.location as string);
  });
  afterEach(async () => {
    if (locker.inTransaction) locker.exec('ROLLBACK');
    locker.close();
    await kit.stop();
  });

  const hold = () => locker.exec('BEGIN IMMEDIATE');

  it('refuses a registration it cannot store with close code 1011 and keeps serving the others', async () => {
    const steady = await kit.edge(kit.a);
    hold();
    const blocked = await kit.edge(kit.a, { register: false });
    blocked.sendJson({ type: 'register', instance_id: 'blocked-1', hostname: 'h', version: '1', status: { policy_name: 'rbac', policy_digest: null, directory_revision: 0 } });
    expect(await blocked.next()).toEqual({ type: 'error', code: 'registration_failed', message: 'the relay could not store the registration; retry later' });
    expect((await blocked.closed).code).toBe(CLOSE_CODES.internalError);
    // Refused while the lock is still held: the relay gave up on its own short busy timeout
    // (REGISTRATION_BUSY_TIMEOUT_MS, which control-plane-store.test.ts reads back from the
    // relay's handle) instead of waiting for the lock, or for the REST API's 5 s.
    expect(locker.inTransaction).toBe(true);

    // The process is alive and the steady edge still gets commands (its status write is skipped).
    const res = await kit.call(EXEC_PATH, { body: { id: steady.instanceId, command: { discovery: {} } } });
    expect(res.status).toBe(200);

    locker.exec('ROLLBACK');
    const again = await kit.edge(kit.a, { instanceId: 'blocked-1' });
    expect(again.instanceId).toBe('blocked-1');
  });

  it('writes a status it could not store when the edge reports it again, though unchanged since', async () => {
    const edge = await kit.edge(kit.a);
    const status = { policy_name: 'rbac', policy_digest: null, directory_revision: 41 };
    const revision = async () => {
      // Frames on one socket are handled in order: a reply to a later frame means the status was handled.
      edge.ws.send('probe');
      expect((await edge.next()).type).toBe('error');
      const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { id: string; info: { directory_revision: number } }[] };
      return listed.result.find((r) => r.id === edge.instanceId)?.info.directory_revision;
    };
    hold();
    edge.sendJson({ type: 'status', status });
    edge.ws.send('probe');
    expect((await edge.next()).type).toBe('error');
    await waitUntil('the relay logged that it could not store the status', () => lines.some((l) => l.msg === 'relay could not store the status'));
    locker.exec('ROLLBACK');
    expect(await revision()).toBe(3);
    // The same status again: the relay must not take it for stored.
    edge.sendJson({ type: 'status', status });
    let seen = await revision();
    for (let attempt = 0; attempt < 50 && seen !== 41; attempt++) seen = await revision();
    expect(seen).toBe(41);
  });

  it('keeps listing a disconnect it could not write as not connected', async () => {
    const edge = await kit.edge(kit.a);
    hold();
    await edge.close();
    // The stored flag could not be cleared; the listing must follow the socket, not the row.
    let connected: boolean | undefined = true;
    for (let attempt = 0; attempt < 50 && connected; attempt++) {
      const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { id: string; info: { connected: boolean } }[] };
      connected = listed.result.find((r) => r.id === edge.instanceId)?.info.connected;
    }
    expect(connected).toBe(false);
  });
});

describe('relay heartbeat with a write-locked database', () => {
  it('skips the last_seen write and keeps the edge', async () => {
    // A heartbeat slow enough that a busy machine's late pong is not taken for a dead edge (at 20 ms
    // the relay once dropped the edge in a loaded full run: exec 409), fast enough for three rounds.
    const kit = await startRelayKit({ heartbeatMs: 250 });
    const locker = new Database(kit.location as string);
    try {
      const edge = await kit.edge(kit.a);
      const pings = () => new Promise<void>((resolve) => edge.ws.once('ping', () => resolve()));
      locker.exec('BEGIN IMMEDIATE');
      // Each ping's pong makes the relay write last_seen; two rounds with the lock held.
      await pings();
      await pings();
      await pings();
      locker.exec('ROLLBACK');
      const res = await kit.call(EXEC_PATH, { body: { id: edge.instanceId, command: { sync_edge_directory: {} } } });
      expect(res.status).toBe(200);
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
      await kit.stop();
    }
  });
});
