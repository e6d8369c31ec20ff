import type { Redis } from 'ioredis';
import { createPresence, redisKeys, type Presence } from '../../src/cluster';
import { useLocalRedis, waitUntil } from '../helpers/redis';

const local = useLocalRedis();
let client: Redis;
let prefix: string;
let presence: Presence;
let tests = 0;

const edge = { tenantId: 'tenant-1', instanceId: 'edge-1' };

beforeAll(async () => {
  client = await local.connect('presence-test');
});
beforeEach(() => {
  tests += 1;
  prefix = `t${tests}:`;
  presence = createPresence({ redis: client, heartbeatMs: 1000, prefix });
});

describe('presence', () => {
  it('claims an edge for a node, with connected_at, last_seen and a TTL of 3 heartbeats', async () => {
    expect(presence.ttlMs).toBe(3000);
    await expect(presence.claim(edge, 'node-a', 1000)).resolves.toBeUndefined();
    await expect(presence.lookup(edge)).resolves.toEqual({ node: 'node-a', connectedAt: 1000, lastSeen: 1000 });
    const ttl = await client.pttl(redisKeys(prefix).edge(edge));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3000);
  });

  it('refreshes last_seen and the TTL of the edges the node holds, in order', async () => {
    const other = { tenantId: 'tenant-1', instanceId: 'edge-2' };
    await presence.claim(edge, 'node-a', 1000);
    await presence.claim(other, 'node-a', 1000);
    // No TTL at all (not a short one, which the clock could run out before the refresh).
    await client.persist(redisKeys(prefix).edge(edge));
    expect(await client.pttl(redisKeys(prefix).edge(edge))).toBe(-1);
    const outcomes = await presence.refresh([{ key: edge, connectedAt: 1000 }, { key: other, connectedAt: 1000 }], 'node-a', 2000);
    expect(outcomes).toEqual(['refreshed', 'refreshed']);
    await expect(presence.lookup(edge)).resolves.toEqual({ node: 'node-a', connectedAt: 1000, lastSeen: 2000 });
    const ttl = await client.pttl(redisKeys(prefix).edge(edge));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3000);
    await expect(presence.refresh([], 'node-a', 3000)).resolves.toEqual([]);
  });

  it('lets a record expire when its node stops refreshing it', async () => {
    const short = createPresence({ redis: client, heartbeatMs: 1000, ttlMs: 100, prefix });
    await short.claim(edge, 'node-a', 1000);
    await waitUntil('the record expired', async () => (await short.lookup(edge)) === undefined);
  });

  it('restores a record that vanished (expired, or Redis restarted empty) while the socket lives', async () => {
    await presence.claim(edge, 'node-a', 1000);
    await client.del(redisKeys(prefix).edge(edge));
    await expect(presence.refresh([{ key: edge, connectedAt: 1000 }], 'node-a', 5000)).resolves.toEqual(['restored']);
    await expect(presence.lookup(edge)).resolves.toEqual({ node: 'node-a', connectedAt: 1000, lastSeen: 5000 });
    expect(await client.pttl(redisKeys(prefix).edge(edge))).toBeGreaterThan(0);
  });

  it('gives the edge to the newest claim and names the node that held it', async () => {
    await presence.claim(edge, 'node-a', 1000);
    await expect(presence.claim(edge, 'node-b', 2000)).resolves.toBe('node-a');
    await expect(presence.lookup(edge)).resolves.toEqual({ node: 'node-b', connectedAt: 2000, lastSeen: 2000 });
    // The old node's heartbeat learns it lost the edge, and does not take it back.
    await expect(presence.refresh([{ key: edge, connectedAt: 1000 }], 'node-a', 3000)).resolves.toEqual(['lost']);
    await expect(presence.lookup(edge)).resolves.toEqual({ node: 'node-b', connectedAt: 2000, lastSeen: 2000 });
    // A reconnect to the same node is no change of holder.
    await expect(presence.claim(edge, 'node-b', 4000)).resolves.toBeUndefined();
  });

  it("releases only the socket's own claim when a connected_at is given: a newer claim on the same node stays", async () => {
    await presence.claim(edge, 'node-a', 1000);
    await presence.claim(edge, 'node-a', 2000); // the edge reconnected to the same node
    await expect(presence.release(edge, 'node-a', 1000)).resolves.toBe(false);
    await expect(presence.lookup(edge)).resolves.toEqual({ node: 'node-a', connectedAt: 2000, lastSeen: 2000 });
    await expect(presence.release(edge, 'node-a', 2000)).resolves.toBe(true);
    await expect(presence.lookup(edge)).resolves.toBeUndefined();
  });

  it('releases only for the node that still holds the edge', async () => {
    await presence.claim(edge, 'node-a', 1000);
    await presence.claim(edge, 'node-b', 2000);
    await expect(presence.release(edge, 'node-a')).resolves.toBe(false);
    await expect(presence.lookup(edge)).resolves.toEqual(expect.objectContaining({ node: 'node-b' }));
    await expect(presence.release(edge, 'node-b')).resolves.toBe(true);
    await expect(presence.lookup(edge)).resolves.toBeUndefined();
  });

  it('looks up many edges in one round trip, undefined where none is held', async () => {
    const keys = [edge, { tenantId: 'tenant-1', instanceId: 'edge-2' }, { tenantId: 'tenant-2', instanceId: 'edge-1' }];
    await presence.claim(keys[0]!, 'node-a', 1000);
    await presence.claim(keys[2]!, 'node-b', 2000);
    await expect(presence.lookupMany(keys)).resolves.toEqual([
      { node: 'node-a', connectedAt: 1000, lastSeen: 1000 },
      undefined,
      { node: 'node-b', connectedAt: 2000, lastSeen: 2000 },
    ]);
    await expect(presence.lookupMany([])).resolves.toEqual([]);
  });

  it('keeps ids that only differ in where a separator falls apart', async () => {
    const a = { tenantId: 'ten:ant', instanceId: 'x' };
    const b = { tenantId: 'ten', instanceId: 'ant:x' };
    expect(redisKeys(prefix).edge(a)).not.toBe(redisKeys(prefix).edge(b));
    await presence.claim(a, 'node-a', 1000);
    await expect(presence.lookup(b)).resolves.toBeUndefined();
  });

  it('refuses bad node ids and empty or overlong key parts before asking Redis', async () => {
    await expect(presence.claim(edge, 'node a', 1)).rejects.toThrow(/node id/);
    await expect(presence.claim(edge, 'n'.repeat(65), 1)).rejects.toThrow(/node id/);
    await expect(presence.lookup({ tenantId: '', instanceId: 'x' })).rejects.toThrow(/tenant id/);
    await expect(presence.lookup({ tenantId: 't', instanceId: 'x'.repeat(257) })).rejects.toThrow(/instance id/);
    expect(() => createPresence({ redis: client, heartbeatMs: 0, prefix })).toThrow(/positive/);
  });

  it('marks a node alive for the node TTL, and gone at once on request', async () => {
    const short = createPresence({ redis: client, heartbeatMs: 1000, nodeTtlMs: 100, prefix });
    await expect(short.isAlive('node-a')).resolves.toBe(false);
    await short.markNodeAlive('node-a', 1000);
    await expect(short.isAlive('node-a')).resolves.toBe(true);
    await waitUntil('node-a expired', async () => !(await short.isAlive('node-a')));
    await presence.markNodeAlive('node-b', 1000);
    expect(await client.pttl(redisKeys(prefix).node('node-b'))).toBeGreaterThan(100);
    await presence.markNodeGone('node-b');
    await expect(presence.isAlive('node-b')).resolves.toBe(false);
  });
});
