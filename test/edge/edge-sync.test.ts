import { readFileSync, writeFileSync } from 'node:fs';
import pino from 'pino';
import { join } from 'node:path';
import request from 'supertest';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { SYNC_RETRY } from '../../src/edge';
import { type Edge } from '../../src/sidecar';
import { createPolicyImage, preparsedCount } from '../../src/policy';
import { VIEWERS_WRITE_REFUSAL } from '../helpers/policy-tests';
import { HOUR, makeEdge, removeDir, tempDir } from './edge-kit';
import { rbacImage, startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
const image = rbacImage();

beforeEach(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = makeEdge(cp.url, dir));
});

afterEach(async () => {
  await edge.close();
  await cp.close();
  removeDir(dir);
});

/** `POST /api/v2/authz/is` for a SUB identity; resolves to `is`. */
async function allowed(e: Edge, user: string, method: string): Promise<boolean> {
  const res = await request(e.app)
    .post('/api/v2/authz/is')
    .send({
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: user },
      policy_context: { path: `rbac.${method}`, decisions: ['allowed'] },
      resource_context: { type: 'Resource', id: 'mega-seed' },
    })
    .expect(200);
  return (res.body as { decisions: { is: boolean }[] }).decisions[0]!.is;
}

function persisted(file: string): unknown {
  return JSON.parse(readFileSync(join(dir, file), 'utf8'));
}

describe('policy discovery', () => {
  it('downloads, verifies and activates the image, persists it, then asks conditionally (304)', async () => {
    expect(edge.status()).toEqual({ policy_name: '', policy_digest: null, directory_revision: 0 });
    await expect(edge.runCommand('discovery')).resolves.toEqual({
      ok: true,
      status: { policy_name: 'rbac', policy_digest: image.digest, directory_revision: 0 },
    });
    expect(persisted('policy-image.json')).toEqual(image);
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true });
    expect(cp.counts).toMatchObject({ image: 2, notModified: 1 });
  });

  it('refuses an image whose digest does not match, with the reason, and keeps the last good one', async () => {
    await edge.runCommand('discovery');
    const other = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': 'permit (principal, action, resource);' });
    cp.image = { ...other, files: { ...other.files, 'rbac.cedar': 'permit (principal, action, resource is Outpost::Resource);' } };
    const outcome = await edge.runCommand('discovery');
    expect(outcome).toEqual({ ok: false, error: { code: 'invalid_image', message: expect.stringContaining('digest mismatch') } });
    expect(edge.status().policy_digest).toBe(image.digest);
    expect(persisted('policy-image.json')).toEqual(image);
  });

  it('refuses an image that does not compile, naming the file, and keeps serving the last good one', async () => {
    await edge.runCommand('discovery');
    await edge.runCommand('sync_edge_directory');
    cp.image = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': 'permit (principal, action, resource' });
    const outcome = await edge.runCommand('discovery');
    expect(outcome).toEqual({ ok: false, error: { code: 'invalid_image', message: expect.stringContaining('rbac.cedar') } });
    expect(edge.status().policy_digest).toBe(image.digest);
    const rick = userId(cp.directory, 'rick');
    await expect(allowed(edge, rick, 'DELETE')).resolves.toBe(true);
  });

  it('refuses an image that fails its own tests: never active, never persisted, compilation released', async () => {
    await edge.runCommand('discovery');
    await edge.runCommand('sync_edge_directory');
    const compiled = preparsedCount();
    // A valid policy that breaks the shipped cases saying viewers may not PUT or POST.
    const viewersWrite = image.files['rbac.cedar']!.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"');
    expect(viewersWrite).not.toBe(image.files['rbac.cedar']);
    cp.image = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': viewersWrite });
    const outcome = await edge.runCommand('discovery');
    expect(outcome).toEqual({
      ok: false,
      error: {
        code: 'policy_tests_failed',
        message:
          `policy image refused, last good image kept: ${VIEWERS_WRITE_REFUSAL}`,
      },
    });
    expect(edge.status().policy_digest).toBe(image.digest);
    expect(persisted('policy-image.json')).toEqual(image);
    expect(preparsedCount()).toBe(compiled);
    await expect(allowed(edge, userId(cp.directory, 'beth'), 'PUT')).resolves.toBe(false);
  });

  it('swaps to a changed valid image, and reports a missing image as no_image', async () => {
    await edge.runCommand('discovery');
    await edge.runCommand('sync_edge_directory');
    const morty = userId(cp.directory, 'morty');
    await expect(allowed(edge, morty, 'DELETE')).resolves.toBe(false);
    const changed = createPolicyImage('rbac', letEditorsDelete(image.files));
    cp.image = changed;
    await expect(edge.runCommand('discovery')).resolves.toMatchObject({ ok: true, status: { policy_digest: changed.digest } });
    await expect(allowed(edge, morty, 'DELETE')).resolves.toBe(true);
    cp.image = undefined;
    await expect(edge.runCommand('discovery')).resolves.toEqual({
      ok: false,
      error: { code: 'no_image', message: 'policy image: control plane answered 404 no_image' },
    });
    expect(edge.status().policy_digest).toBe(changed.digest);
  });

  it('coalesces commands that arrive during a run into exactly one follow-up run', async () => {
    const held = cp.hold();
    const first = edge.runCommand('discovery');
    await held.arrived;
    const changed = createPolicyImage('rbac', { ...image.files, 'extra.cedar': '// nothing\n' });
    cp.image = changed;
    const waiters = [edge.runCommand('discovery'), edge.runCommand('discovery'), edge.runCommand('discovery')];
    held.release();
    await expect(first).resolves.toMatchObject({ ok: true, status: { policy_digest: image.digest } });
    for (const outcome of await Promise.all(waiters)) {
      expect(outcome).toEqual({ ok: true, status: { policy_name: 'rbac', policy_digest: changed.digest, directory_revision: 0 } });
    }
    expect(cp.counts.image).toBe(2);
  });
});

describe('directory sync', () => {
  it('starts with a full sync, then applies changes incrementally (grant Morty admin)', async () => {
    await edge.runCommand('discovery');
    await expect(edge.runCommand('sync_edge_directory')).resolves.toMatchObject({ ok: true, status: { directory_revision: 1 } });
    const morty = userId(cp.directory, 'morty');
    cp.record({ op: 'role.grant', user_id: morty, role: 'admin' });
    await expect(allowed(edge, morty, 'DELETE')).resolves.toBe(false); // not synced yet
    await expect(edge.runCommand('sync_edge_directory')).resolves.toMatchObject({ ok: true, status: { directory_revision: 2 } });
    await expect(allowed(edge, morty, 'DELETE')).resolves.toBe(true);
    expect(cp.counts).toMatchObject({ full: 1, changes: 1 });
    expect(persisted('directory.json')).toMatchObject({ revision: 2 });
  });

  it('falls back to a full sync on 410 and on a gap in the revisions', async () => {
    await edge.runCommand('sync_edge_directory');
    const morty = userId(cp.directory, 'morty');
    cp.record({ op: 'role.grant', user_id: morty, role: 'admin' });
    cp.oldestSince = 5;
    await expect(edge.runCommand('sync_edge_directory')).resolves.toMatchObject({ ok: true, status: { directory_revision: 2 } });
    expect(cp.counts).toMatchObject({ full: 2, changes: 1 });

    cp.oldestSince = 0;
    cp.record({ op: 'role.revoke', user_id: morty, role: 'admin' });
    cp.record({ op: 'role.grant', user_id: morty, role: 'evil_genius' });
    cp.changes.splice(cp.changes.findIndex((c) => c.rev === 3), 1); // the log lost rev 3
    await expect(edge.runCommand('sync_edge_directory')).resolves.toMatchObject({ ok: true, status: { directory_revision: 4 } });
    expect(cp.counts).toMatchObject({ full: 3, changes: 2 });
    expect(persisted('directory.json')).toEqual(cp.directory);
  });

  it('runs a periodic full sync once fullSyncIntervalMs has passed', async () => {
    await edge.close();
    let now = 1_000_000;
    ({ edge } = makeEdge(cp.url, dir, { now: () => now, fullSyncIntervalMs: HOUR }));
    await edge.runCommand('sync_edge_directory');
    now += HOUR - 1;
    await edge.runCommand('sync_edge_directory');
    expect(cp.counts).toMatchObject({ full: 1, changes: 1 });
    now += 1;
    await edge.runCommand('sync_edge_directory');
    expect(cp.counts).toMatchObject({ full: 2, changes: 1 });
  });
});

describe('readiness, persistence and restart', () => {
  it('is not ready until both a policy image and a directory are loaded', async () => {
    await request(edge.app).get('/healthz').expect(200, { status: 'ok' });
    await request(edge.app).get('/readyz').expect(503, { status: 'not_ready', policy: false, directory: false });
    await edge.runCommand('discovery');
    await request(edge.app).get('/readyz').expect(503, { status: 'not_ready', policy: true, directory: false });
    await edge.runCommand('sync_edge_directory');
    await request(edge.app).get('/readyz').expect(200, { status: 'ready', policy: true, directory: true });
  });

  it('keeps its instance id across restarts; a new data directory is a new instance', async () => {
    const first = edge.instanceId;
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(persisted('instance.json')).toMatchObject({ instance_id: first });
    await edge.close();
    ({ edge } = makeEdge(cp.url, dir));
    expect(edge.instanceId).toBe(first);
    const other = tempDir();
    const { edge: stranger } = makeEdge(cp.url, other);
    expect(stranger.instanceId).not.toBe(first);
    await stranger.close();
    removeDir(other);
  });

  it('restarts from disk and serves decisions with the control plane down', async () => {
    await edge.runCommand('discovery');
    await edge.runCommand('sync_edge_directory');
    const rick = userId(cp.directory, 'rick');
    const beth = userId(cp.directory, 'beth');
    const id = edge.instanceId;
    await edge.close();
    await cp.close();

    ({ edge } = makeEdge(cp.url, dir));
    await edge.start(); // must not fail: the control plane and relay are down
    expect(edge.instanceId).toBe(id);
    await request(edge.app).get('/readyz').expect(200, { status: 'ready', policy: true, directory: true });
    await expect(allowed(edge, rick, 'DELETE')).resolves.toBe(true);
    await expect(allowed(edge, beth, 'DELETE')).resolves.toBe(false);
    await expect(edge.runCommand('discovery')).resolves.toEqual({
      ok: false,
      error: { code: 'control_plane_unavailable', message: expect.stringContaining('control plane unreachable') },
    });
    expect(edge.status()).toEqual({ policy_name: 'rbac', policy_digest: image.digest, directory_revision: 1 });
    cp = await startFakeControlPlane(); // for afterEach
  });

  it('runs the persisted image\'s own tests again at start: one failing them is ignored and logged, like a damaged one', async () => {
    await edge.runCommand('discovery');
    await edge.close();
    // A valid image with a correct digest that breaks the shipped cases saying viewers may not PUT or POST.
    const viewersWrite = image.files['rbac.cedar']!.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"');
    const failing = createPolicyImage('rbac', { ...image.files, 'rbac.cedar': viewersWrite });
    writeFileSync(join(dir, 'policy-image.json'), JSON.stringify(failing));
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const compiled = preparsedCount();
    ({ edge } = makeEdge('http://127.0.0.1:9', dir, { logger }));
    await edge.start();
    expect(edge.status().policy_digest).toBeNull();
    expect(preparsedCount()).toBe(compiled);
    const warning = lines.map((l) => JSON.parse(l) as { msg: string; err?: string }).find((l) => l.msg === 'ignoring the persisted policy image');
    expect(warning?.err).toBe(VIEWERS_WRITE_REFUSAL);
    await edge.close();
    // The same file with the image that passes its tests is loaded.
    writeFileSync(join(dir, 'policy-image.json'), JSON.stringify(image));
    ({ edge } = makeEdge('http://127.0.0.1:9', dir));
    await edge.start();
    expect(edge.status().policy_digest).toBe(image.digest);
  });

  it('tries a failed first sync again within a second, not a whole interval later, and is ready once it passes', async () => {
    cp.image = undefined; // the first discovery fails (404)
    const made = makeEdge(cp.url, dir);
    await edge.close();
    ({ edge } = made);
    await edge.start();
    await made.clock.scheduled(HOUR + 1); // the directory synced and waits its interval
    const retry = SYNC_RETRY.baseMs / 2; // the jitter draws 0.5
    await made.clock.scheduled(retry);
    expect(made.clock.pending().map((t) => t.ms)).not.toContain(HOUR);
    await request(edge.app).get('/readyz').expect(503, { status: 'not_ready', policy: false, directory: true });
    cp.image = image;
    made.clock.fire(retry);
    await made.clock.scheduled(HOUR); // it passed: back to the interval
    await request(edge.app).get('/readyz').expect(200, { status: 'ready', policy: true, directory: true });
    expect(cp.counts.image).toBe(2);
  });

  it('ignores a damaged persisted file instead of failing to start', async () => {
    await edge.runCommand('discovery');
    await edge.close();
    writeFileSync(join(dir, 'policy-image.json'), '{"name":"rbac","digest":"sha256:00","files":{}}');
    writeFileSync(join(dir, 'directory.json'), 'not json');
    ({ edge } = makeEdge('http://127.0.0.1:9', dir));
    await edge.start();
    await request(edge.app).get('/readyz').expect(503, { status: 'not_ready', policy: false, directory: false });
  });
});

describe('metrics', () => {
  it('counts decisions and syncs and shows the digest and revision', async () => {
    await edge.runCommand('discovery');
    await edge.runCommand('discovery');
    await edge.runCommand('sync_edge_directory');
    cp.image = undefined;
    await edge.runCommand('discovery');
    await allowed(edge, userId(cp.directory, 'rick'), 'DELETE');
    await allowed(edge, userId(cp.directory, 'jerry'), 'DELETE');
    await allowed(edge, userId(cp.directory, 'jerry'), 'GET');
    const res = await request(edge.app).get('/metrics').expect(200).expect('content-type', /^text\/plain; version=0\.0\.4/);
    const text = res.text;
    expect(text).toContain('outpost_edge_decisions_total{decision="allowed"} 2\n');
    expect(text).toContain('outpost_edge_decisions_total{decision="denied"} 1\n');
    expect(text).toContain('outpost_edge_syncs_total{job="policy",result="updated"} 1\n');
    expect(text).toContain('outpost_edge_syncs_total{job="policy",result="unchanged"} 1\n');
    expect(text).toContain('outpost_edge_syncs_total{job="policy",result="failed"} 1\n');
    expect(text).toContain('outpost_edge_syncs_total{job="directory",result="updated"} 1\n');
    expect(text).toContain('outpost_edge_directory_revision 1\n');
    expect(text).toContain(`outpost_edge_policy_info{policy="rbac",digest="${image.digest}"} 1\n`);
  });
});

describe('shutdown', () => {
  it('aborts a control-plane request that hangs instead of waiting for its time-out', async () => {
    await edge.start();
    const held = cp.hold();
    const command = edge.runCommand('discovery');
    await held.arrived;
    // The request's time limit runs on the test's timers and never fires here: closing can
    // end only by aborting the request, not by waiting for the limit.
    await edge.close();
    await expect(command).resolves.toEqual({ ok: false, error: { code: 'control_plane_unavailable', message: 'the edge is closing (GET /api/v2/edge/policy-image)' } });
    held.release();
  });
});
