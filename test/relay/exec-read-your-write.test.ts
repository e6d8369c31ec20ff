import { Client } from 'pg';
import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { POSTGRES_ENGINE, SQL_ENGINES } from '../helpers/sql-engines';
import { waitFor } from '../integration/stack-client';
import type { FakeEdge } from './fake-edge';
import { startRelayKit, type RelayKit } from './relay-kit';

// An exec's 200 comes after the status it confirmed is stored: a registration listed after
// the answer shows it (docs/reference/api.md, beside the drift fields).

async function revisionListed(kit: RelayKit, edge: FakeEdge): Promise<number | undefined> {
  const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { id: string; info: { directory_revision: number } }[] };
  return listed.result.find((r) => r.id === edge.instanceId)?.info.directory_revision;
}

const sync = (kit: RelayKit, edge: FakeEdge) => kit.call(EXEC_PATH, { body: { id: edge.instanceId, command: { sync_edge_directory: {} } } });

describe.each(SQL_ENGINES)('exec on $name: read your write', (engine) => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ engine });
  });
  afterAll(() => kit.stop());

  it('lists the confirmed revision right after every answer', async () => {
    const edge = await kit.edge(kit.a);
    for (let revision = 10; revision < 40; revision += 1) {
      edge.confirmedRevision = revision;
      expect((await sync(kit, edge)).status).toBe(200);
      expect(await revisionListed(kit, edge)).toBe(revision);
    }
  });
});

/** Whether a backend now waits on a lock in an UPDATE of relay_instances (asked outside any transaction: a snapshot holds per transaction). */
async function updateBlocked(watcher: Client): Promise<boolean> {
  const { rows } = await watcher.query<{ n: string }>(
    "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%UPDATE relay_instances%'",
  );
  return Number(rows[0]?.n) > 0;
}

describe('exec on postgres, its status write held up by a row lock', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ engine: POSTGRES_ENGINE });
  });
  afterAll(() => kit.stop());

  it('answers only once the write went through, and the listing then shows it', async () => {
    const edge = await kit.edge(kit.a);
    const { databaseUrl } = kit.location as { databaseUrl: string };
    const [locker, watcher] = [new Client({ connectionString: databaseUrl }), new Client({ connectionString: databaseUrl })];
    await Promise.all([locker.connect(), watcher.connect()]);
    try {
      await locker.query('BEGIN');
      await locker.query('SELECT 1 FROM relay_instances WHERE instance_id = $1 FOR UPDATE', [edge.instanceId]);
      edge.confirmedRevision = 99;
      let answered = false;
      const exec = sync(kit, edge).finally(() => {
        answered = true;
      });
      // The edge confirms at once; the relay's write of that status then waits for the row
      // (up to the pool's lock timeout, 1 s). An exec that did not wait for its write would
      // have answered before the write even started.
      await waitFor('an UPDATE of relay_instances waiting for the locked row', async () => ((await updateBlocked(watcher)) ? true : undefined), 10_000, 10);
      // The listing is a round trip to the relay after its write was seen waiting: an answer
      // exec had sent before its write ended would have been sent before the listing's.
      const listed = await revisionListed(kit, edge);
      expect({ stillBlocked: await updateBlocked(watcher), answered, listed }).toEqual({ stillBlocked: true, answered: false, listed: 3 });
      await locker.query('COMMIT');
      expect((await exec).status).toBe(200);
      expect(await revisionListed(kit, edge)).toBe(99);
    } finally {
      await Promise.all([locker.end(), watcher.end()]);
    }
  });
});
