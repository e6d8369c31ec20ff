import { once } from 'node:events';
import { isDeepStrictEqual } from 'node:util';
import type { WebSocket } from 'ws';
import { backoffDelay } from '../../src/edge';
import { type Edge } from '../../src/sidecar';
import { createPolicyImage } from '../../src/policy';
import { USERS } from '../apps/app-fixture';
import { waitFor } from '../integration/stack-client';
import { HOUR, makeEdge, removeDir, tempDir } from './edge-kit';
import { rbacImage, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane';
import type { ManualTimers } from './manual-timers';

const SILENCE = 5_000;
let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let clock: ManualTimers;
let now: number;

beforeEach(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  now = 1_000_000;
  ({ edge, clock } = makeEdge(cp.url, dir, { now: () => now, relay: { silenceTimeoutMs: SILENCE, stableAfterMs: 10_000 } }));
});

afterEach(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

/** Starts the edge and resolves with the relay side of its socket once it registered. */
async function startAndRegister(): Promise<WebSocket> {
  const connection = cp.relay.nextConnection();
  await edge.start();
  const ws = await connection;
  await cp.relay.nextFrame('register');
  return ws;
}

describe('backoffDelay', () => {
  it('grows exponentially from 250 ms, caps at 30 s and draws uniformly below the ceiling (full jitter)', () => {
    const options = { baseMs: 250, capMs: 30_000 };
    expect([0, 1, 2, 3].map((a) => backoffDelay(a, { ...options, random: () => 0.999999 }))).toEqual([249, 499, 999, 1999]);
    expect(backoffDelay(20, { ...options, random: () => 0.999999 })).toBe(29_999);
    expect(backoffDelay(1_000, { ...options, random: () => 0.5 })).toBe(15_000);
    expect(backoffDelay(5, { ...options, random: () => 0 })).toBe(0);
  });
});

describe('relay client', () => {
  it('authenticates at the upgrade, registers, and reports status after timer-driven syncs', async () => {
    await startAndRegister();
    const register = cp.relay.frames.find((f) => f.type === 'register');
    expect(register).toEqual({
      type: 'register',
      instance_id: edge.instanceId,
      hostname: 'edge-test-host',
      version: '9.9.9',
      status: expect.objectContaining({ policy_name: expect.any(String) }),
    });
    // The first runs happen at start; each timer is re-armed when its run ended.
    await Promise.all([clock.scheduled(HOUR), clock.scheduled(HOUR + 1)]);
    const synced = { policy_name: 'rbac', policy_digest: rbacImage().digest, directory_revision: 1 };
    expect(edge.status()).toEqual(synced);
    // Each first run reports its status as it ends (or the register frame carries it); one may
    // still be on its way, so wait until the last report holds both before frames are counted.
    const lastReport = () => cp.relay.frames.filter((f) => f.type === 'status' || f.type === 'register').at(-1) as { status?: unknown } | undefined;
    await waitFor('the report of both first syncs', async () => (isDeepStrictEqual(lastReport()?.status, synced) ? true : undefined));
    const changed = createPolicyImage('rbac', { ...rbacImage().files, 'extra.cedar': '// nothing\n' });
    cp.image = changed;
    cp.relay.skipReceived();
    expect(clock.fire(HOUR)).toBe(1); // the discovery timer
    await expect(cp.relay.nextFrame('status')).resolves.toEqual({
      type: 'status',
      status: { policy_name: 'rbac', policy_digest: changed.digest, directory_revision: 1 },
    });
  });

  it('answers sample_request with its recorded decisions, and a failure to read them as a failed result', async () => {
    await startAndRegister();
    await edge.settle(5_000);
    const rick = USERS.rick.id;
    await edge.authorizer.authorize({ principal: rick, action: 'DELETE', resource: { type: 'Resource', id: 'mega-seed' }, policyPath: 'rbac.DELETE' });
    cp.relay.send({ type: 'sample_request', request_id: 'sample-1' });
    await expect(cp.relay.nextFrame('sample_chunk')).resolves.toEqual({
      type: 'sample_chunk',
      request_id: 'sample-1',
      entries: [{ principal: rick, action: 'DELETE', resource: { type: 'Resource', id: 'mega-seed' }, decision: 'allow', policy_digest: rbacImage().digest, directory_revision: 1 }],
      done: true,
      status: edge.status(),
    });

    jest.spyOn(edge.decisionSample, 'entries').mockImplementation(() => {
      throw new Error('broken');
    });
    cp.relay.send({ type: 'sample_request', request_id: 'sample-2' });
    await expect(cp.relay.nextFrame('command_result')).resolves.toEqual({
      type: 'command_result',
      request_id: 'sample-2',
      ok: false,
      error: { code: 'sample_failed', message: 'the edge could not read its decision sample (see the edge log)' },
    });
  });

  it('runs a command frame now and answers command_result, with the reason when the image is refused', async () => {
    await startAndRegister();
    cp.relay.send({ type: 'command', request_id: 'req-1', command: 'sync_edge_directory' });
    await expect(cp.relay.nextFrame('command_result')).resolves.toEqual({
      type: 'command_result',
      request_id: 'req-1',
      ok: true,
      status: expect.objectContaining({ directory_revision: 1 }),
    });
    const image = rbacImage();
    cp.image = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': 'permit (principal,' });
    cp.relay.send({ type: 'command', request_id: 'req-2', command: 'discovery' });
    const result = await cp.relay.nextFrame('command_result');
    expect(result).toEqual({
      type: 'command_result',
      request_id: 'req-2',
      ok: false,
      error: { code: 'invalid_image', message: expect.stringMatching(/^policy image refused, last good image kept: .*rbac\.cedar:1/s) },
    });
  });

  it('does not answer a command on a newer connection than the one it came on', async () => {
    await startAndRegister();
    const held = cp.hold();
    cp.relay.send({ type: 'command', request_id: 'req-old', command: 'discovery' });
    await held.arrived;
    cp.relay.dropAll();
    await clock.scheduled(125);
    const back = cp.relay.nextConnection();
    clock.fire(125);
    await back;
    await cp.relay.nextFrame('register');
    // A second discovery queues behind the held run, so its answer comes after the old
    // command has finished: the old one must have been dropped, not sent here.
    cp.relay.send({ type: 'command', request_id: 'req-new', command: 'discovery' });
    held.release();
    await expect(cp.relay.nextFrame('command_result')).resolves.toMatchObject({ request_id: 'req-new', ok: true });
    expect(cp.relay.frames.filter((f) => f.type === 'command_result').map((f) => (f as { request_id: string }).request_id)).toEqual([
      'req-new',
    ]);
  });

  it('ignores malformed frames and keeps the connection', async () => {
    await startAndRegister();
    cp.relay.send({ type: 'command', request_id: 'req-x', command: 'format_disk' });
    cp.relay.send({ hello: 'world' });
    cp.relay.send({ type: 'command', request_id: 'req-3', command: 'discovery' });
    await expect(cp.relay.nextFrame('command_result')).resolves.toMatchObject({ request_id: 'req-3', ok: true });
    expect(cp.relay.frames.filter((f) => f.type === 'command_result')).toHaveLength(1);
  });

  it('reconnects with exponential backoff and jitter, resetting after a stable connection', async () => {
    await startAndRegister();
    // random() is 0.5: delays are half of 250·2^attempt.
    for (const delay of [125, 250, 500]) {
      cp.relay.dropAll();
      await clock.scheduled(delay);
      const back = cp.relay.nextConnection();
      clock.fire(delay);
      await back;
      await expect(cp.relay.nextFrame('register')).resolves.toMatchObject({ instance_id: edge.instanceId });
    }
    now += 10_000; // the last connection lived long enough: start over
    cp.relay.dropAll();
    await clock.scheduled(125);
    expect(clock.delays.filter((d) => d < SILENCE)).toEqual([125, 250, 500, 125]);
  });

  it('syncs policy and directory once on every registration after a reconnect, not on the first', async () => {
    const ws = await startAndRegister();
    await edge.settle(5_000);
    const directoryCalls = () => cp.counts.full + cp.counts.changes;
    const before = { image: cp.counts.image, directory: directoryCalls() };
    ws.send(JSON.stringify({ type: 'registered', instance_id: edge.instanceId }));
    cp.relay.send({ type: 'sample_request', request_id: 'fence' });
    await cp.relay.nextFrame('sample_chunk');
    expect({ image: cp.counts.image, directory: directoryCalls() }).toEqual(before);

    cp.relay.dropAll();
    await clock.scheduled(125);
    const back = cp.relay.nextConnection();
    clock.fire(125);
    const again = await back;
    await cp.relay.nextFrame('register');
    cp.relay.skipReceived();
    again.send(JSON.stringify({ type: 'registered', instance_id: edge.instanceId }));
    // The syncs ran, and the relay hears the status after them.
    await cp.relay.nextFrame('status');
    expect(cp.counts.image).toBe(before.image + 1);
    expect(directoryCalls()).toBe(before.directory + 1);
  });

  it('backs off when the relay refuses the credentials at the upgrade (401)', async () => {
    cp.relay.refuse = true;
    await edge.start();
    for (const delay of [125, 250, 500]) {
      await clock.scheduled(delay);
      clock.fire(delay);
    }
    await clock.scheduled(1000);
    expect(cp.relay.upgrades).toBe(4);
    expect(edge.relayConnected).toBe(false);
  });

  it('drops a relay that stays silent and dials again', async () => {
    const ws = await startAndRegister();
    const closed = once(ws, 'close');
    await clock.scheduled(SILENCE);
    clock.fire(SILENCE);
    const [code] = (await closed) as [number];
    expect(code).toBe(1006); // terminated, no closing handshake
    await clock.scheduled(125);
    const back = cp.relay.nextConnection();
    clock.fire(125);
    await back;
    await expect(cp.relay.nextFrame('register')).resolves.toMatchObject({ instance_id: edge.instanceId });
  });

  it('closes with 1001 on shutdown and does not reconnect', async () => {
    const ws = await startAndRegister();
    const closed = once(ws, 'close');
    await edge.close();
    const [code] = (await closed) as [number];
    expect(code).toBe(1001);
    expect(clock.pending().filter((t) => t.ms < SILENCE)).toEqual([]);
  });
});
