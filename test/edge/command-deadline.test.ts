/**
 * A relay command whose download from the control plane times out: the edge tries again
 * within the command's time (the frame's `timeout_ms`, less the share for its answer) and,
 * when it runs out, says what happened rather than a bare time-out. The control plane is a
 * real HTTP server on port 0 holding its answers until the test lets them go; the edge's
 * timers and clock are the test's, so each try times out when the test fires it.
 */
import type { Edge } from '../../src/sidecar';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { rbacImage, startFakeControlPlane, type FakeControlPlane } from './fake-control-plane';
import type { ManualTimers } from './manual-timers';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let clock: ManualTimers;
let now: number;

beforeEach(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  now = 1_000_000;
  ({ edge, clock } = makeEdge(cp.url, dir, { now: () => now }));
});

afterEach(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

/** Waits until a timer of `ms` is pending, moves the clock by `ms` and fires it. */
async function pass(ms: number): Promise<void> {
  await clock.scheduled(ms);
  now += ms;
  expect(clock.fire(ms)).toBe(1);
}

describe('a command whose download times out', () => {
  it('tries again within the command\'s time: half of what is left per try, a jittered pause between', async () => {
    const held = cp.hold();
    const command = edge.runCommand('discovery', 10_000);
    await held.arrived;
    // 10 s less the tenth kept for the answer: 9 s, the first try half of it.
    await pass(4_500);
    held.release(); // the first answer was given up; the second request is answered
    await pass(50); // full jitter below 100 ms, the draw 0.5
    await expect(command).resolves.toEqual({ ok: true, status: { policy_name: 'rbac', policy_digest: rbacImage().digest, directory_revision: 0 } });
    expect(cp.counts.image).toBe(2);
  });

  it('names the cause, the request and the tries once no time is left for another', async () => {
    const held = cp.hold();
    const command = edge.runCommand('discovery', 10_000);
    // Each try waits half of what is left; the last one, under 2 × the 500 ms floor, all of it.
    const tries = [4_500, 2_225, 1_062, 863];
    const pauses = [50, 100, 200];
    for (const [i, ms] of tries.entries()) {
      await cp.imageRequests(i + 1); // the try reached the control plane, which holds its answer
      await pass(ms);
      if (i < pauses.length) await pass(pauses[i]!);
    }
    await expect(command).resolves.toEqual({
      ok: false,
      error: { code: 'control_plane_unavailable', message: 'control plane did not answer within 863 ms (GET /api/v2/edge/policy-image; 4 tries in 9000 ms)' },
    });
    expect(cp.counts.image).toBe(4);
    expect(edge.status().policy_digest).toBeNull();
    held.release();
  });

  it('spends the time the relay said it waits (timeout_ms), not a default', async () => {
    const connection = cp.relay.nextConnection();
    await edge.start();
    await connection;
    await cp.relay.nextFrame('register');
    // Let the syncs at start settle before the control plane stalls.
    await clock.scheduled(3_600_000);
    await clock.scheduled(3_600_001);
    const held = cp.hold();
    cp.relay.skipReceived();
    cp.relay.send({ type: 'command', request_id: 'short', command: 'discovery', timeout_ms: 2_000 });
    await held.arrived;
    await pass(900); // 2 s × 0.9, halved
    await pass(50);
    await cp.imageRequests(3); // the one at start, and both tries of the command
    await clock.scheduled(850); // under 2 × the 500 ms floor: the second try gets all that is left
    held.release();
    await expect(cp.relay.nextFrame('command_result')).resolves.toEqual({
      type: 'command_result',
      request_id: 'short',
      ok: true,
      status: { policy_name: 'rbac', policy_digest: rbacImage().digest, directory_revision: 1 },
    });
  });

  it('does not try again after a refusal: it came at once and says what is wrong', async () => {
    await cp.close();
    const command = edge.runCommand('sync_edge_directory', 10_000);
    await expect(command).resolves.toEqual({
      ok: false,
      error: { code: 'control_plane_unavailable', message: 'control plane unreachable (ECONNREFUSED; GET /api/v2/edge/directory)' },
    });
    expect(clock.pending()).toEqual([]);
    cp = await startFakeControlPlane(); // for afterEach
  });

});
