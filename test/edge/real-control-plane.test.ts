/**
 * The edge against the real control plane and relay (not the fakes): the edge API and
 * the wire protocol as the other side implements them. Both commands end to end.
 */
import { EventEmitter, once } from 'node:events';
import { pino } from 'pino';
import type { Server } from 'node:http';
import { join } from 'node:path';
import request from 'supertest';
import { createControlPlaneApp, createControlPlaneRelay, openControlPlaneStore, seedControlPlane, type ControlPlaneStore } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import type { Edge } from '../../src/sidecar';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { createPolicyImage } from '../../src/policy';
import type { Relay } from '../../src/relay';
import { makeEdge, removeDir, tempDir } from './edge-kit';
import { rbacImage, root, seedDirectory, userId } from './fake-control-plane';

let dir: string;
let store: ControlPlaneStore;
let relay: Relay;
let server: Server;
let edge: Edge;
let tenantId: string;

beforeAll(async () => {
  dir = tempDir();
  store = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
  const demo = (await seedControlPlane(store, {
    policiesDir: join(root, 'policies'),
    directorySeed: seedDirectory(),
    dataDir: dir,
    urls: { auth_url: 'http://a', relay_url: 'http://r', app_url: 'http://p' },
  }))!;
  tenantId = demo.tenant_id;
  relay = await createControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: 10_000, heartbeatMs: 60_000 });
  server = await listen(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter] }), 0, '127.0.0.1');
  relay.attach(server);
  const events = new EventEmitter();
  const registered = once(events, 'registered');
  const logger = pino({ level: 'info' }, {
    write(line: string) {
      const entry = JSON.parse(line) as { msg?: string };
      if (entry.msg === 'registered with the relay') events.emit('registered');
    },
  });
  ({ edge } = makeEdge(baseUrl(server), join(dir, 'edge'), {
    logger,
    connectionId: demo.connection_id,
    connectionSecret: demo.connection_secret,
  }));
  await edge.start();
  await registered; // exec answers 404 until the relay has processed `register`
  await edge.runCommand('discovery');
});

afterAll(async () => {
  await edge.close();
  await relay.close();
  await close(server);
  await store.close();
  removeDir(dir);
});

async function deleteAllowed(user: string): Promise<boolean> {
  const res = await request(edge.app)
    .post('/api/v2/authz/is')
    .send({
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: user },
      policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] },
      resource_context: { type: 'Resource', id: 'mega-seed' },
    })
    .expect(200);
  return (res.body as { decisions: { is: boolean }[] }).decisions[0]!.is;
}

const exec = (command: 'discovery' | 'sync_edge_directory') => relay.exec(tenantId, edge.instanceId, command);

describe('edge with the real control plane and relay', () => {
  it('sync_edge_directory: Morty granted admin centrally is allowed at the edge only after the command', async () => {
    const morty = userId(seedDirectory(), 'morty');
    await expect(deleteAllowed(morty)).resolves.toBe(false);
    await store.directory.change(tenantId, { op: 'role.grant', user_id: morty, role: 'admin' });
    await expect(deleteAllowed(morty)).resolves.toBe(false);
    await expect(exec('sync_edge_directory')).resolves.toMatchObject({ directory_revision: 2 });
    await expect(deleteAllowed(morty)).resolves.toBe(true);
  });

  it('discovery: a valid new image is active when exec returns; an invalid one answers 502 with the reason', async () => {
    const image = rbacImage();
    const changed = createPolicyImage('rbac', { ...image.files, 'extra.cedar': '// nothing\n' });
    await store.images.push(tenantId, changed);
    await expect(exec('discovery')).resolves.toMatchObject({ policy_name: 'rbac', policy_digest: changed.digest });
    await store.images.push(tenantId, createPolicyImage('rbac', { ...image.files, 'rbac.cedar': 'permit (' }));
    await expect(exec('discovery')).rejects.toMatchObject({ status: 502, message: expect.stringContaining('rbac.cedar:1') });
    expect(edge.status().policy_digest).toBe(changed.digest);
  });
});
