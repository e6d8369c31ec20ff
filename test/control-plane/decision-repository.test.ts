import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTenant, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { createDecisionIngest, openDecisionRepository, type DecisionRepository } from '../../src/decision-store';
import { silentLogger } from '../../src/observability';
import { decisionRecord as record } from '../helpers/decision-record';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { seedDirectory } from './fixture';

describe.each(SQL_ENGINES)('decision records on $name', (engine) => {
  let dir: string;
  let store: ControlPlaneStore;
  let decisions: DecisionRepository;
  let clock = 1_800_000_000_000;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-decisions-'));
    store = await openControlPlaneStore(await engine.location(dir), { now: () => clock });
    decisions = openDecisionRepository(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const tenant = async () => (await createTenant(store, { name: 't', directory: { roles: seedDirectory.roles, users: [], resources: [] } })).tenantId;

  it("keeps each tenant's records apart, lists them newest first with every filter, and pages", async () => {
    const a = await tenant();
    const b = await tenant();
    await decisions.append(a, 'edge-1', [record(1), record(2, { principal: { id: 'u-morty' }, decision: 'deny', reasons: [{ policy: null, comment: 'no policy permits' }] })], clock);
    await decisions.append(a, 'edge-2', [record(3, { action: 'GET', resource: { type: 'Outpost::Todo', id: '7' } })], clock);
    await decisions.append(b, 'edge-1', [record(4)], clock);
    const ids = async (filter: object, page = {}) => (await decisions.list(a, filter, { limit: 10, ...page })).map((d) => d.request_id);
    expect(await ids({})).toEqual(['req-3', 'req-2', 'req-1']);
    expect(await ids({ principal: 'u-morty' })).toEqual(['req-2']);
    expect(await ids({ principal: 'rick@the-citadel.com' })).toEqual(['req-3', 'req-1']);
    expect(await ids({ decision: 'deny' })).toEqual(['req-2']);
    expect(await ids({ action: 'GET' })).toEqual(['req-3']);
    expect(await ids({ resource: 'Outpost::Todo:7' })).toEqual(['req-3']);
    expect(await ids({ resource: '7' })).toEqual(['req-3']);
    expect(await ids({ resource: 'Resource:7' })).toEqual([]);
    expect(await ids({ instance: 'edge-1' })).toEqual(['req-2', 'req-1']);
    expect(await ids({ requestId: 'req-1' })).toEqual(['req-1']);
    expect(await ids({ since: 1_700_000_000_002 })).toEqual(['req-3', 'req-2']);
    const [newest] = await decisions.list(a, {}, { limit: 1 });
    expect(newest).toEqual({ ...record(3, { action: 'GET', resource: { type: 'Outpost::Todo', id: '7' } }), id: expect.any(Number), instance_id: 'edge-2', received_at: clock });
    expect(await ids({}, { before: newest!.id })).toEqual(['req-2', 'req-1']);
    // `after` follows the stream: oldest first.
    const oldest = (await decisions.list(a, {}, { limit: 10 })).at(-1)!;
    expect(await ids({}, { after: oldest.id })).toEqual(['req-2', 'req-3']);
    expect((await decisions.list(b, {}, { limit: 10 })).map((d) => d.request_id)).toEqual(['req-4']);
  });

  it('trims a tenant to its count and age, and leaves the other tenant alone', async () => {
    const a = await tenant();
    const b = await tenant();
    await decisions.append(a, 'e', [record(1), record(2)], clock - 10_000);
    await decisions.append(a, 'e', [record(3), record(4), record(5)], clock);
    await decisions.append(b, 'e', [record(6)], clock - 10_000);
    expect(await decisions.trim(a, { maxPerTenant: 2, maxAgeMs: 5_000 }, clock)).toBe(3);
    expect((await decisions.list(a, {}, { limit: 10 })).map((d) => d.request_id)).toEqual(['req-5', 'req-4']);
    expect(await decisions.count(b)).toBe(1);
  });

  it('holds the retention under a flood: storage stays within the count plus one trim interval', async () => {
    const a = await tenant();
    const retention = { maxPerTenant: 300, maxAgeMs: 3_600_000 };
    const trimEvery = { records: 200, ms: 60_000 };
    const ingest = createDecisionIngest({ decisions: decisions, logger: silentLogger(), now: () => clock, retention, trimEvery });
    let highest = 0;
    for (let frame = 0; frame < 40; frame++) {
      ingest.accept({ tenantId: a, instanceId: 'flood' }, Array.from({ length: 50 }, (_, i) => record(frame * 50 + i)));
      if (frame % 5 === 4) {
        await ingest.idle();
        highest = Math.max(highest, await decisions.count(a));
      }
    }
    await ingest.idle();
    expect(ingest.stats()).toEqual({ stored: 2_000, dropped: 0, failed: 0, pending: 0 });
    expect(highest).toBeLessThanOrEqual(retention.maxPerTenant + trimEvery.records);
    const count = await decisions.count(a);
    expect(count).toBe(retention.maxPerTenant);
    // The newest stay.
    expect((await decisions.list(a, {}, { limit: 1 }))[0]!.request_id).toBe('req-1999');
  });

  it('drops frames past its pending bound and counts them, storing the rest', async () => {
    const a = await tenant();
    const ingest = createDecisionIngest({ decisions: decisions, logger: silentLogger(), now: () => clock, maxPending: 120 });
    ingest.accept({ tenantId: a, instanceId: 'e' }, Array.from({ length: 100 }, (_, i) => record(i)));
    ingest.accept({ tenantId: a, instanceId: 'e' }, Array.from({ length: 30 }, (_, i) => record(100 + i)));
    ingest.accept({ tenantId: a, instanceId: 'e' }, Array.from({ length: 20 }, (_, i) => record(200 + i)));
    await ingest.idle();
    expect(ingest.stats()).toEqual({ stored: 120, dropped: 30, failed: 0, pending: 0 });
    expect(await decisions.count(a)).toBe(120);
  });
});
