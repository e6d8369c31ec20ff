import request from 'supertest';
import type { Edge } from '../../src/sidecar';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, rbacImage, type FakeControlPlane } from './fake-control-plane';
import { createPolicyImage } from '../../src/policy';
import type { EdgeState } from '../../src/edge/edge-state';
import { createFreshness, FRESHNESS_SYNC_GAP_MS, type NotFreshError } from '../../src/edge/freshness';
import { manualTimers } from './manual-timers';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let morty: string;

beforeEach(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = makeEdge(cp.url, dir, { freshnessWaitMs: 300 }));
  await edge.runCommand('discovery');
  await edge.runCommand('sync_edge_directory');
  morty = userId(cp.directory, 'morty');
});

afterEach(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

const mortyDeletes = { subject: { type: 'user', id: '' }, action: { name: 'DELETE' }, resource: { type: 'Resource', id: 'mega-seed' } };
const evaluate = (extra: Record<string, unknown> = {}) =>
  request(edge.app).post('/access/v1/evaluation').send({ ...mortyDeletes, subject: { type: 'user', id: morty }, ...extra });
const isBody = (extra: Record<string, unknown> = {}) => ({
  identity_context: { type: 'SUB', identity: morty },
  policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] },
  resource_context: { type: 'Resource', id: 'mega-seed' },
  ...extra,
});

describe('freshness on request', () => {
  it('without a demand, decides from what it has (no sync)', async () => {
    cp.record({ op: 'role.grant', user_id: morty, role: 'admin' });
    const before = cp.counts.changes;
    await evaluate().expect(200, { decision: false });
    expect(cp.counts.changes).toBe(before);
  });

  it('syncs the directory first when the caller needs a newer revision (body field or header)', async () => {
    const change = cp.record({ op: 'role.grant', user_id: morty, role: 'admin' });
    const res = await evaluate({ min_directory_revision: change.rev }).expect(200, { decision: true });
    expect(res.headers['outpost-directory-revision']).toBe(String(change.rev));

    const revoke = cp.record({ op: 'role.revoke', user_id: morty, role: 'admin' });
    await request(edge.app)
      .post('/api/v2/authz/is')
      .set('Outpost-Min-Directory-Revision', String(revoke.rev))
      .send(isBody())
      .expect(200, { decisions: [{ decision: 'allowed', is: false }] });
  });

  it('fetches the image the caller names before deciding', async () => {
    const next = createPolicyImage('rbac', { ...rbacImage().files, 'rbac.cedar': `${rbacImage().files['rbac.cedar']}\n// v2\n` });
    cp.image = next;
    const res = await evaluate({ min_policy_digest: next.digest }).expect(200);
    expect(res.headers['outpost-policy-digest']).toBe(next.digest);
    expect(edge.status().policy_digest).toBe(next.digest);
  });

  it('answers 409 with what it has when the control plane has nothing newer', async () => {
    const res = await evaluate({ min_directory_revision: 99 }).expect(409);
    expect(res.body).toMatchObject({ code: 'not_fresh', directory_revision: cp.directory.revision, policy_digest: edge.status().policy_digest });
    const unknown = `sha256:${'0'.repeat(64)}`;
    expect((await request(edge.app).post('/api/v2/authz/is').send(isBody({ min_policy_digest: unknown })).expect(409)).body.code).toBe('not_fresh');
  });

  it('answers 503 within the bounded wait when the sync hangs, and never decides on older state', async () => {
    const held = cp.hold();
    // Answered while the control plane still holds the sync's answer: the edge stopped
    // waiting on its own bound (its freshness wait, 300 ms here), not when the sync ended.
    const res = await evaluate({ min_policy_digest: `sha256:${'1'.repeat(64)}` }).expect(503);
    await held.arrived; // the sync it waited for had reached the control plane, which still holds it
    expect(res.body.code).toBe('freshness_unavailable');
    expect(res.headers['retry-after']).toBe('1');
    held.release();
  });

  it('answers 503 when the control plane is gone', async () => {
    cp.record({ op: 'role.grant', user_id: morty, role: 'admin' });
    await cp.close();
    const res = await evaluate({ min_directory_revision: 2 }).expect(503);
    expect(res.body).toMatchObject({ code: 'freshness_unavailable', directory_revision: 1 });
    cp = await startFakeControlPlane(); // for afterEach
  });

  it('starts at most one sync per 100 ms for a flood of demands it cannot meet (the edge\'s timers and clock are the test\'s)', async () => {
    const clock = manualTimers();
    let now = 0;
    const state: EdgeState = { policy: undefined, directory: { ...cp.directory, revision: 1 } };
    const syncs: number[] = [];
    const freshness = createFreshness({
      state,
      sync: { discovery: () => Promise.resolve(), directory: () => Promise.resolve(syncs.push(now)) },
      waitMs: 1_000,
      timers: clock.timers,
      now: () => now,
      onSynced: () => undefined,
    });
    const flood = (n: number) => Array.from({ length: n }, () => freshness.ensure({ minDirectoryRevision: 50 }).catch((err: NotFreshError) => err.status));
    // Twenty demands at once: one sync now, and one in the next slot that all the others share.
    const first = flood(20);
    await clock.scheduled(FRESHNESS_SYNC_GAP_MS);
    expect(syncs).toEqual([0]);
    now += FRESHNESS_SYNC_GAP_MS;
    expect(clock.fire(FRESHNESS_SYNC_GAP_MS)).toBe(1);
    expect(await Promise.all(first)).toEqual(Array(20).fill(409));
    expect(syncs).toEqual([0, 100]);
    // Twenty more 50 ms later: their slot is 100 ms after the last start, 50 ms from now.
    now += 50;
    const second = flood(20);
    await clock.scheduled(50);
    now += 50;
    expect(clock.fire(50)).toBe(1);
    expect(await Promise.all(second)).toEqual(Array(20).fill(409));
    expect(syncs).toEqual([0, 100, 200]);
  });

  it('refuses malformed freshness fields and headers with 400', async () => {
    await evaluate({ min_directory_revision: -1 }).expect(400);
    await evaluate({ min_policy_digest: 'latest' }).expect(400);
    const res = await request(edge.app).post('/access/v1/evaluation').set('Outpost-Min-Directory-Revision', '1e9').send({ ...mortyDeletes, subject: { type: 'user', id: morty } }).expect(400);
    expect(res.body.code).toBe('invalid_freshness');
  });
});
