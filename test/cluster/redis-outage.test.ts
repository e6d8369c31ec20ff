import type { Redis } from 'ioredis';
import { HttpError } from '../../src/http';
import { httpFailure } from '../helpers/http-failure';
import { silentLogger } from '../../src/observability';
import { createPresence, startNodeBus, type NodeBus, type Presence } from '../../src/cluster';
import { useLocalRedis, waitUntil } from '../helpers/redis';

const local = useLocalRedis();
let a: NodeBus;
let b: NodeBus;
let presence: Presence;
let clientA: Redis;

const edge = { tenantId: 'tenant-1', instanceId: 'edge-1' };
const exec = { kind: 'exec', tenant: 'tenant-1', instance: 'edge-1', command: 'discovery' } as const;

beforeAll(async () => {
  clientA = await local.connect('node-a');
  const clientB = await local.connect('node-b');
  a = await startNodeBus({ redis: clientA, node: 'node-a', logger: silentLogger() });
  b = await startNodeBus({ redis: clientB, node: 'node-b', logger: silentLogger() });
  b.onRequest(async () => 'confirmed');
  presence = createPresence({ redis: clientA, heartbeatMs: 1000 });
});
afterAll(async () => {
  await a.close();
  await b.close();
});


const unavailable = {
  status: 503,
  code: 'routing_unavailable',
  message: 'routing between control-plane nodes is unavailable',
  headers: { 'Retry-After': '1' },
};
const answer = (err: HttpError) => ({ status: err.status, code: err.code, message: err.message, headers: err.headers });

describe('a Redis outage', () => {
  it('fails fast with 503 routing_unavailable while Redis is down, and heals by itself once it is back', async () => {
    await expect(a.request('node-b', exec, 5000)).resolves.toBe('confirmed');
    await presence.claim(edge, 'node-a', 1000);

    await local.server.kill();
    await waitUntil('the client noticed', () => clientA.status !== 'ready');
    // Timeouts far beyond the test's own: only failing fast passes.
    expect(answer(await httpFailure(a.request('node-b', exec, 600_000)))).toEqual(unavailable);
    expect(answer(await httpFailure(presence.claim(edge, 'node-a', 2000)))).toEqual(unavailable);
    expect(answer(await httpFailure(presence.refresh([{ key: edge, connectedAt: 1000 }], 'node-a', 2000)))).toEqual(unavailable);
    expect(answer(await httpFailure(presence.lookupMany([edge])))).toEqual(unavailable);
    expect(answer(await httpFailure(presence.isAlive('node-b')))).toEqual(unavailable);

    // The restarted Redis is empty: no subscriptions, no scripts, no keys. Nothing is redone by hand.
    await local.server.restart();
    await waitUntil('routing works again', () => a.request('node-b', exec, 1000).then(
      (result) => result === 'confirmed',
      () => false,
    ));
    await expect(presence.refresh([{ key: edge, connectedAt: 1000 }], 'node-a', 3000)).resolves.toEqual(['restored']);
    await expect(presence.claim(edge, 'node-b', 4000)).resolves.toBe('node-a');
    await expect(presence.release(edge, 'node-b')).resolves.toBe(true);
  });
});
