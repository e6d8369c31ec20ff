import { INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { POSTGRES_ENGINE, postgresServer } from '../helpers/sql-engines';
import { startRelayKit, type RelayKit } from './relay-kit';

/**
 * The control plane (its app, relay and console, in-process on a real port) over a throwaway
 * PostgreSQL that goes away and comes back: while it is down, calls that need the database
 * answer 503 `storage_unavailable` with Retry-After, within the pool's connect time-out
 * (never a hang, never a 500); once it is back the same calls succeed, without restarting
 * the node (the pool drops the broken connections and opens new ones).
 */
describe('control plane on PostgreSQL when PostgreSQL goes down and comes back', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ engine: POSTGRES_ENGINE });
  });
  afterAll(async () => {
    // The server may still be down if a test failed half-way: the kit's store must close either way.
    const pg = await postgresServer();
    await pg.start().catch(() => undefined);
    await kit.stop();
  });

  const adminKeys = () => kit.call('/api/v2/admin/signing-keys', { headers: { authorization: `basic ${kit.a.adminApiKey}` } });
  const registrations = () => kit.call(INSTANCE_REGISTRATIONS_PATH);

  const expectUnavailable = async (res: Response) => {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({ code: 'storage_unavailable', message: 'storage is busy or unavailable; retry shortly' });
  };

  it.each([
    ['a fast shutdown', false],
    ['a crash', true],
  ])('answers 503 storage_unavailable during %s and recovers by itself when it is back', async (_what, immediate) => {
    expect((await adminKeys()).status).toBe(200);
    expect((await registrations()).status).toBe(200);
    const pg = await postgresServer();
    await pg.shutdown({ immediate });
    await expectUnavailable(await adminKeys());
    await expectUnavailable(await registrations());
    // A write too: registering a key needs the tenant's row lock.
    await expectUnavailable(
      await kit.call('/api/v2/admin/signing-keys', {
        headers: { authorization: `basic ${kit.a.adminApiKey}` },
        body: { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) }] },
      }),
    );
    await pg.start();
    expect((await adminKeys()).status).toBe(200);
    const listed = await registrations();
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ result: [] });
  });
});
