// Decision records (docs/reference/api.md, "Decision records"), beside bench:apps' hot-path cost:
//   npm run bench:decisions
//
// 1. Ingest: how many records a control plane stores a second — the relay's ingest queue over
//    a real store (SQLite; PostgreSQL too when Debian's binaries are there), frames of 100
//    records from 10 edges, retention trimming included — rounds, min/median/max.
// 2. Hot path: what queueing a record adds to a cached embedded decision (lib/record-cost, as
//    bench:apps measures it), with and without, per round; and what shipping a record costs the
//    edge off that path (taken, checked, framed, serialized), CPU ns per record per round.
// 3. End to end: a decision at a real sidecar (forked children: control plane, edge) until the
//    admin API lists it, found by its request id — p50/p99. The console's live view reads the
//    same store every 500 ms, so it shows a record at most that much later.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedAuthorizer } from '../../src/embedded-edge';
import { decisionRecords } from '../../src/decision-records';
import { openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { createDecisionIngest, openDecisionRepository } from '../../src/decision-store';
import { silentLogger } from '../../src/observability';
import type { DecisionRecord } from '../../src/relay-protocol';
import { startLocalPostgres } from '../lib/local-postgres';
import { scriptCommand } from '../lib/script-command';
import { startBenchStack, type BenchStack } from './lib/bench-stack';
import type { BenchChild } from './lib/child-harness';
import { closeCalls, isRequestBody, request } from './lib/control-plane-calls';
import { spreadOf } from './lib/compare-rounds';
import { reportRecordCost, reportShipCost } from './lib/record-cost';
import { summarize } from './lib/stats';
import { fmt, machineLine, printTable } from './lib/table';

const ROUNDS = 5;
const RECORDS_PER_ROUND = 20_000;
const RECORDS_PER_FRAME = 100;
const EDGES = 10;
const END_TO_END = 100;
const RECORD_ROUNDS = 5;
const RECORD_DECISIONS = 200_000;
const SHIPPED_RECORDS = 20_000;
const HOUR = 3_600_000;
/** Morty's id in the demo directory (data/), the principal of every record here. */
const MORTY_ID = 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02';
/** How often the console's stream reads the store (src/decision-store/stream-decisions.ts). */
const STREAM_POLL_MS = 500;

function record(i: number): DecisionRecord {
  return {
    time: Date.now(),
    request_id: `bench-${i}`,
    app: 'sidecar',
    principal: { id: MORTY_ID, email: 'morty@the-citadel.com' },
    action: 'DELETE',
    resource: { type: 'Resource', id: `r-${i % 500}` },
    decision: i % 3 === 0 ? 'allow' : 'deny',
    reasons: i % 3 === 0 ? [{ policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' }] : [{ policy: null, comment: 'no policy permits' }],
    policy_digest: `sha256:${'a'.repeat(64)}`,
    directory_revision: 1,
    latency_us: 12,
  };
}

/** Records stored a second by one ingest queue over `store`, one figure per round. */
async function ingestRate(store: ControlPlaneStore): Promise<number[]> {
  const { tenantId } = await store.tenants.create('bench');
  const frame = Array.from({ length: RECORDS_PER_FRAME }, (_, i) => record(i));
  const rates: number[] = [];
  // Retention as a busy tenant would have it: the trim runs inside the measured rounds.
  const ingest = createDecisionIngest({ decisions: openDecisionRepository(store), logger: silentLogger(), retention: { maxPerTenant: 50_000, maxAgeMs: 3600_000 } });
  for (let round = -1; round < ROUNDS; round++) {
    const started = process.hrtime.bigint();
    for (let sent = 0; sent < RECORDS_PER_ROUND; sent += RECORDS_PER_FRAME) {
      ingest.accept({ tenantId, instanceId: `edge-${(sent / RECORDS_PER_FRAME) % EDGES}` }, frame);
      // As frames arrive from sockets: the writer gets its turns between them.
      if ((sent / RECORDS_PER_FRAME) % 20 === 19) await new Promise((resolve) => setImmediate(resolve));
    }
    await ingest.idle();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (round >= 0) rates.push(RECORDS_PER_ROUND / seconds);
  }
  const { stored, dropped, failed } = ingest.stats();
  if (dropped > 0 || failed > 0) throw new Error(`the ingest dropped ${dropped} and failed ${failed} of ${stored + dropped + failed} records`);
  return rates;
}

/** The record's hot-path cost at an embedded edge on the bench stack's app connection (ns added, median). */
async function hotPath(cp: BenchStack['cp'], dataDir: string): Promise<number> {
  const records = decisionRecords({ app: 'bench' });
  const embedded = await openEmbeddedAuthorizer({
    relayUrl: cp.url,
    ...cp.appConnection,
    dataDir,
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: 24 * HOUR,
    logger: silentLogger(),
    hostname: 'bench-decisions',
    version: 'bench',
    plugins: [records],
  });
  try {
    const request = { principal: MORTY_ID, action: 'DELETE', resource: { type: 'Resource', id: 'record-cost' }, policyPath: 'rbac.DELETE' };
    const added = reportRecordCost(embedded.edge, records.log, request, RECORD_ROUNDS, RECORD_DECISIONS);
    reportShipCost(embedded.edge, request, RECORD_ROUNDS, SHIPPED_RECORDS);
    return added;
  } finally {
    await embedded.close();
  }
}

async function endToEnd(cp: BenchStack['cp'], edge: BenchStack['edge']): Promise<number[]> {
  const admin = { 'service-tenant-id': cp.tenantId, authorization: `basic ${cp.adminApiKey}` };
  const morty = 'morty@the-citadel.com';
  const latencies: number[] = [];
  for (let i = -10; i < END_TO_END; i++) {
    const id = `e2e-${randomUUID()}`;
    const started = performance.now();
    const decided = await request(`${edge.edgeUrl}/api/v2/authz/is`, 'POST', { 'content-type': 'application/json', 'x-request-id': id }, isRequestBody(morty, 'rbac.DELETE', 'mega-seed'));
    if (decided.status !== 200) throw new Error(`the edge answered ${decided.status}: ${decided.text}`);
    for (;;) {
      const listed = await request(`${cp.url}/api/v2/admin/decisions?request_id=${id}`, 'GET', admin);
      if (listed.status !== 200) throw new Error(`the admin API answered ${listed.status}: ${listed.text}`);
      if ((JSON.parse(listed.text) as { decisions: unknown[] }).decisions.length > 0) break;
      if (performance.now() - started > 10_000) throw new Error(`decision ${id} not listed within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    if (i >= 0) latencies.push(performance.now() - started);
  }
  return latencies;
}

async function main(): Promise<void> {
  console.log(machineLine());
  const dir = mkdtempSync(join(tmpdir(), 'outpost-bench-decisions-'));
  const rows: (string | number)[][] = [];
  try {
    const sqlite = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
    try {
      const s = spreadOf(await ingestRate(sqlite));
      rows.push(['SQLite file', fmt(s.min, 0), fmt(s.median, 0), fmt(s.max, 0)]);
    } finally {
      await sqlite.close();
    }
    let pg: Awaited<ReturnType<typeof startLocalPostgres>> | undefined;
    try {
      pg = await startLocalPostgres();
    } catch (err) {
      rows.push(['PostgreSQL', `not measured: ${(err as Error).message.split('\n')[0]}`, '', '']);
    }
    if (pg) {
      const store = await openControlPlaneStore({ databaseUrl: pg.url, poolSize: 10 });
      try {
        const s = spreadOf(await ingestRate(store));
        rows.push(['PostgreSQL (throwaway, durability off)', fmt(s.min, 0), fmt(s.median, 0), fmt(s.max, 0)]);
      } finally {
        await store.close();
        await pg.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(`\n1. Records one control plane stores a second: ${ROUNDS} rounds of ${RECORDS_PER_ROUND} records, frames of ${RECORDS_PER_FRAME} from ${EDGES} edges, retention trimming included:`);
  printTable(['store', 'min records/s', 'median', 'max'], rows, 2);

  const children: BenchChild[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-hot-path-'));
  try {
    const { cp, edge } = await startBenchStack(children);
    const added = await hotPath(cp, dataDir);
    console.log(`Goal < 1,000 ns added per decision: ${Math.round(added)} ns, ${added < 1000 ? 'PASS' : 'BELOW GOAL'}`);
    printEndToEnd(summarize(await endToEnd(cp, edge)));
  } finally {
    closeCalls();
    for (const child of children.reverse()) await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function printEndToEnd(e2e: ReturnType<typeof summarize>): void {
  console.log(`\n3. A decision at the sidecar until GET /api/v2/admin/decisions lists it (${END_TO_END} decisions, one after another; the edge ships every 200 ms):`);
  printTable(
    ['', 'p50 ms', 'p99 ms', 'max ms'],
    [
      ['decision → listed by the admin API', fmt(e2e.p50, 1), fmt(e2e.p99, 1), fmt(e2e.max, 1)],
      [`→ shown by the console's live view (reads every ${STREAM_POLL_MS} ms), at most`, fmt(e2e.p50 + STREAM_POLL_MS, 1), fmt(e2e.p99 + STREAM_POLL_MS, 1), ''],
    ],
    2,
  );
}

scriptCommand(
  'npm run bench:decisions --',
  'decision records: records one control plane stores a second (SQLite, PostgreSQL), and a decision at a sidecar until the admin API lists it (p50/p99)',
  'npm run bench:decisions',
).parse();

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
