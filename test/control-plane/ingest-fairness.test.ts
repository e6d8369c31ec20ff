// Decision records from one tenant's edges cannot take the control plane from the others
// (docs/reference/limits.md, DECISION_BUDGET): a flood is shed and counted for that tenant alone,
// within its rate, burst and pending bounds; the writer takes tenants in turn; and it gives the
// event loop back between batches, so other requests are served while a backlog is written. On
// a real SQLite store, with an injected clock: nothing here waits on the wall clock.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTenant, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { openDecisionRepository, type DecisionRepository } from '../../src/decision-store';
import { createDecisionIngest, DECISION_BUDGET, type DecisionBudget } from '../../src/decision-store/ingest-decisions';
import { silentLogger } from '../../src/observability';
import type { DecisionRecord } from '../../src/relay-protocol';
import { decisionRecord as record } from '../helpers/decision-record';
import { seedDirectory } from './fixture';

const frame = (from: number, n = 100): DecisionRecord[] => Array.from({ length: n }, (_, i) => record(from + i));
const BUDGET: DecisionBudget = { recordsPerSecond: 100, burstRecords: 1_000, bytesPerSecond: 1e9, burstBytes: 1e9, maxPending: 10_000 };

describe('decision record ingest shares the control plane fairly', () => {
  let dir: string;
  let store: ControlPlaneStore;
  let decisions: DecisionRepository;
  let clock = 1_800_000_000_000;
  let a: string;
  let b: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-fair-'));
    store = await openControlPlaneStore(join(dir, 'cp.sqlite'), { now: () => clock });
    decisions = openDecisionRepository(store);
    const empty = { roles: seedDirectory.roles, users: [], resources: [] };
    a = (await createTenant(store, { name: 'a', directory: empty })).tenantId;
    b = (await createTenant(store, { name: 'b', directory: empty })).tenantId;
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("sheds a tenant's records past its burst and rate, counted for it alone; the other tenant loses nothing", async () => {
    const ingest = createDecisionIngest({ decisions: decisions, logger: silentLogger(), now: () => clock, budget: BUDGET });
    for (let f = 0; f < 30; f++) ingest.accept({ tenantId: b, instanceId: 'flood' }, frame(f * 100));
    ingest.accept({ tenantId: a, instanceId: 'quiet' }, frame(0, 10));
    await ingest.idle();
    expect(ingest.stats(b)).toEqual({ stored: 1_000, dropped: 2_000, failed: 0, pending: 0 });
    expect(ingest.stats(a)).toEqual({ stored: 10, dropped: 0, failed: 0, pending: 0 });
    // The budget refills with time: 2 s at 100 records/s is two more frames, not three.
    clock += 2_000;
    for (let f = 30; f < 33; f++) ingest.accept({ tenantId: b, instanceId: 'flood' }, frame(f * 100));
    await ingest.idle();
    expect(ingest.stats(b)).toMatchObject({ stored: 1_200, dropped: 2_100 });
    expect(await decisions.count(b)).toBe(1_200);
  });

  it("sheds by bytes too: large records count against the tenant's byte budget", async () => {
    const bytesBudget = { ...BUDGET, burstRecords: 1e6, recordsPerSecond: 1e6, burstBytes: 100_000, bytesPerSecond: 1 };
    const ingest = createDecisionIngest({ decisions: decisions, logger: silentLogger(), now: () => clock, budget: bytesBudget });
    const big = (n: number) => frame(n).map((r) => ({ ...r, reasons: [{ policy: 'p.cedar:1', comment: 'x'.repeat(190) }] }));
    for (let f = 0; f < 10; f++) ingest.accept({ tenantId: b, instanceId: 'e' }, big(f * 100));
    await ingest.idle();
    const { stored, dropped } = ingest.stats(b);
    expect(stored + dropped).toBe(1_000);
    expect(stored).toBeGreaterThan(0);
    expect(dropped).toBeGreaterThan(0);
    expect(Buffer.byteLength(JSON.stringify(big(0))) * (stored / 100)).toBeLessThanOrEqual(100_000);
  });

  it("keeps a tenant's pending records within its own bound, so the node's queue stays open to the others", async () => {
    const ingest = createDecisionIngest({ decisions: decisions, logger: silentLogger(), now: () => clock, budget: { ...BUDGET, burstRecords: 1e6, maxPending: 300 }, maxPending: 1_000 });
    for (let f = 0; f < 8; f++) ingest.accept({ tenantId: b, instanceId: 'flood' }, frame(f * 100));
    ingest.accept({ tenantId: a, instanceId: 'quiet' }, frame(0));
    expect(ingest.stats(b).pending).toBeLessThanOrEqual(300);
    expect(ingest.stats(a)).toMatchObject({ pending: 100, dropped: 0 });
    await ingest.idle();
    expect(ingest.stats(a)).toMatchObject({ stored: 100, dropped: 0 });
  });

  it('takes tenants in turn: a tenant that queued after a backlog is stored long before its end', async () => {
    const order: string[] = [];
    const counted = { ...decisions, append: (tenantId: string, ...rest: Parameters<DecisionRepository['append']> extends [string, ...infer R] ? R : never) => {
      order.push(tenantId === a ? 'a' : 'b');
      return decisions.append(tenantId, ...rest);
    } };
    const ingest = createDecisionIngest({ decisions: counted, logger: silentLogger(), now: () => clock, budget: { ...BUDGET, burstRecords: 1e6 } });
    for (let f = 0; f < 10; f++) ingest.accept({ tenantId: b, instanceId: 'flood' }, frame(f * 100));
    ingest.accept({ tenantId: a, instanceId: 'quiet' }, frame(0, 1));
    await ingest.idle();
    expect(order).toHaveLength(11);
    expect(order.indexOf('a')).toBeLessThanOrEqual(2);
  });

  it('gives the event loop back between batches: a request arriving during a backlog is served before the backlog ends', async () => {
    const ingest = createDecisionIngest({ decisions: decisions, logger: silentLogger(), now: () => clock, budget: { ...BUDGET, burstRecords: 1e6 } });
    for (let f = 0; f < 20; f++) ingest.accept({ tenantId: b, instanceId: 'flood' }, frame(f * 100));
    // What an incoming request's callback is: I/O-phase work, queued behind whatever holds the loop.
    const storedWhenServed = await new Promise<number>((resolve) => setImmediate(() => resolve(ingest.stats(b).stored)));
    expect(storedWhenServed).toBeLessThanOrEqual(2 * 100);
    await ingest.idle();
    expect(ingest.stats(b).stored).toBe(2_000);
  });

  it('ships with bounds below the node: a tenant may queue at most a quarter of what the node holds', () => {
    expect(DECISION_BUDGET.maxPending * 4).toBeLessThanOrEqual(20_000);
  });
});
