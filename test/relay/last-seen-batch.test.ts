/**
 * Heartbeat pongs move `last_seen` in batches (docs/reference/limits.md): gathered for
 * `flushMs`, then one statement per tenant per `maxIds` edges, only for edges still held.
 * Jest's fake timers are the clock; the statements are recorded, and the store is real in
 * the last test (SQLite, the relay's own table).
 */
import { LAST_SEEN_BATCH, createLastSeenBatch } from '../../src/relay/last-seen-batch';
import { START, startRelayKit } from './relay-kit';
import { INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { waitUntil } from '../helpers/redis';

describe('createLastSeenBatch', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function recorder(held: (id: string) => boolean = () => true) {
    const statements: { tenantId: string; ids: readonly string[]; now: number }[] = [];
    const batch = createLastSeenBatch({
      touchMany: async (tenantId, ids, now) => void statements.push({ tenantId, ids, now }),
      write: async (_what, _id, work) => {
        await work();
        return true;
      },
      held: (key) => held(key.instanceId),
      now: () => 42,
    });
    return { batch, statements };
  }

  it(`writes nothing before ${LAST_SEEN_BATCH.flushMs} ms, then one statement per tenant per ${LAST_SEEN_BATCH.maxIds} edges`, async () => {
    const { batch, statements } = recorder();
    const many = Array.from({ length: LAST_SEEN_BATCH.maxIds + 1 }, (_v, i) => `edge-${i}`);
    for (const instanceId of many) batch.add({ tenantId: 'a', instanceId });
    batch.add({ tenantId: 'a', instanceId: 'edge-0' }); // a second pong of the same edge: one row
    batch.add({ tenantId: 'b', instanceId: 'edge-0' });
    jest.advanceTimersByTime(LAST_SEEN_BATCH.flushMs - 1);
    expect(statements).toEqual([]);
    jest.advanceTimersByTime(1);
    await Promise.resolve();
    expect(statements.map((s) => [s.tenantId, s.ids.length, s.now])).toEqual([
      ['a', LAST_SEEN_BATCH.maxIds, 42],
      ['a', 1, 42],
      ['b', 1, 42],
    ]);
    expect(statements[0]!.ids).toEqual(many.slice(0, LAST_SEEN_BATCH.maxIds));
    expect(statements[1]!.ids).toEqual([many[LAST_SEEN_BATCH.maxIds]]);
  });

  it('leaves out an edge no longer held when the batch is written, and writes nothing after stop', async () => {
    const { batch, statements } = recorder((id) => id !== 'gone');
    batch.add({ tenantId: 'a', instanceId: 'gone' });
    batch.add({ tenantId: 'a', instanceId: 'here' });
    jest.advanceTimersByTime(LAST_SEEN_BATCH.flushMs);
    await Promise.resolve();
    expect(statements.map((s) => s.ids)).toEqual([['here']]);
    batch.add({ tenantId: 'a', instanceId: 'here' });
    batch.stop();
    jest.advanceTimersByTime(LAST_SEEN_BATCH.flushMs);
    await Promise.resolve();
    expect(statements).toHaveLength(1);
  });
});

describe('last_seen from heartbeats, on a real relay', () => {
  it("moves every connected edge's last_seen to the time of its pong", async () => {
    const kit = await startRelayKit({ heartbeatMs: 50 });
    try {
      const edges = [await kit.edge(kit.a, { instanceId: 'one' }), await kit.edge(kit.a, { instanceId: 'two' })];
      kit.clock.now = START + 60_000;
      await waitUntil('both edges listed with the later last_seen', async () => {
        const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { id: string; info: { last_seen: string } }[] };
        return listed.result.length === 2 && listed.result.every((r) => r.info.last_seen === new Date(START + 60_000).toISOString());
      });
      expect(edges.map((e) => e.instanceId)).toEqual(['one', 'two']);
    } finally {
      await kit.stop();
    }
  });
});
