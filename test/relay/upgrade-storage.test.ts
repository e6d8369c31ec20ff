import { basic, refusedUpgrade, relayUrl } from './fake-edge';
import { startRelayKit } from './relay-kit';

/**
 * The connection check at the upgrade reads the store; when that read fails the edge gets a
 * 503 with Retry-After (it retries with backoff), never a 401 and never an open socket.
 */
describe('relay upgrade with the store unavailable', () => {
  it('answers 503 storage_unavailable with Retry-After, and opens no WebSocket', async () => {
    const kit = await startRelayKit();
    try {
      await kit.store.close();
      const answer = await refusedUpgrade(relayUrl(kit.url), { authorization: basic(kit.a.connectionId, kit.a.secret) });
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body).toEqual({ code: 'storage_unavailable', message: 'storage is busy or unavailable; retry shortly' });
      expect(answer.opened).toBe(false);
    } finally {
      await kit.stop();
    }
  });
});
