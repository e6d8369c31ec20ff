/**
 * The relay closes once, through its gate (running → closing → closed): from the first call on,
 * every request is refused with 503 `relay_closing`; edges hear 1001 and their disconnects are
 * stored; a second call waits for the first instead of closing twice.
 */
import { silentLogger } from '../../src/observability';
import { CLOSE_CODES, createRelay } from '../../src/relay';
import { openRegistrationStore } from '../../src/relay/registration-store';
import { startRelayKit, type RelayKit } from './relay-kit';

let kit: RelayKit;
beforeAll(async () => {
  kit = await startRelayKit();
});
afterAll(async () => {
  await kit.stop();
});

it('answers a second close() with the first one’s promise, before and after it settled', async () => {
  const relay = await createRelay({
    store: kit.store,
    requireDiscoveryKey: (_req, _res, next) => next(),
    logger: silentLogger(),
    execTimeoutMs: 1000,
    heartbeatMs: 60_000,
  });
  const first = relay.close();
  expect(relay.close()).toBe(first);
  await first;
  await expect(relay.close()).resolves.toBeUndefined();
});

it('refuses requests from the first close() on, closes the edges (1001), stores their disconnects; a second close() settles with the first', async () => {
  const edge = await kit.edge(kit.a);
  const key = { tenantId: kit.a.tenantId, instanceId: edge.instanceId };
  const first = kit.relay.close();
  const second = kit.relay.close();
  const closing = { status: 503, code: 'relay_closing' };
  await expect(kit.relay.exec(key.tenantId, key.instanceId, 'discovery')).rejects.toMatchObject(closing);
  await expect(kit.relay.broadcast(key.tenantId, 'discovery')).rejects.toMatchObject(closing);
  await Promise.all([first, second]);
  expect(await edge.closed).toEqual({ code: CLOSE_CODES.goingAway, reason: 'relay shutting down' });
  const db = await kit.store.openRegistrationDatabase({ busyTimeoutMs: 50 });
  expect((await openRegistrationStore(db).get(key))?.connected).toBe(false);
  await db.close();
  await expect(kit.relay.close()).resolves.toBeUndefined();
  await expect(kit.relay.sampleDecisions(key.tenantId, key.instanceId)).rejects.toMatchObject(closing);
});
