// The sample apps' request path, from bare Express to the full default stack:
//   npm run bench:apps
//
// 1. Throughput, layer by layer: bare Express; + helmet; the app's own stack (helmet,
//    request id, request log) without auth; + authentication; + authorization by the
//    embedded edge (the default, `rbac embedded`), allowed (Rick, 200) and denied (Morty,
//    403); and, for comparison, the `local` and `edge` (sidecar over HTTP) authorizers. Servers run in a child (lib/apps-server),
//    with a control plane and a sidecar edge in two more; autocannon runs here. Targets
//    are warmed up, then alternated for a few rounds, then alternated again while the
//    child's CPU clock is read. Every ratio is taken within a round against the baseline's
//    run in that round, printed as median (min–max) over rounds; goals are judged on the
//    CPU ratio (lib/compare-rounds).
// 2. Embedded decision latency, in this process: an embedded edge on its own instance.
// 3. Propagation into the app: a directory change or a policy push, the relay command,
//    and the app's next answer.
// CPU profile of the apps child: BENCH_CPU_PROF=<dir> npm run bench:apps
// A shorter run of part 1 only: npm run bench:apps -- --throughput-only --rounds 3 --seconds 3
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddedAuthorizer } from '../../src/embedded-edge';
import { decisionRecords } from '../../src/decision-records';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { silentLogger } from '../../src/observability';
import { measureDirectoryPropagation, measurePolicyPropagation, type Propagation } from './lib/app-propagation';
import type { AppsInfo } from './lib/apps-server';
import { forkBenchChild, type BenchChild } from './lib/child-harness';
import { compareRounds, formatSpread, goalRow, printComparisons, printLayers } from './lib/compare-rounds';
import { startBenchStack } from './lib/bench-stack';
import { closeCalls, waitForRegistration } from './lib/control-plane-calls';
import { measureDecisionLatency } from './lib/decision-latency';
import { reportRecordCost } from './lib/record-cost';
import { alternate, cpuPerRequest, printMedians, roundSamples, type LoadTarget } from './lib/load';
import { fmt, machineLine, printTable, verdict } from './lib/table';
import { scriptCommand, wholeNumber } from '../lib/script-command';

const CONNECTIONS = 10;
const WARMUP_SECONDS = 2;
const DECISIONS = 10_000;
const PROPAGATIONS = 50;
const HOUR = 3_600_000;
const GOALS = { ofNoAuth: 0.9, ofBare: 0.8, ofOtherMiddleware: 2, cachedP50Us: 5, coldP50Us: 60, directoryP99Ms: 50, policyP99Ms: 100, recordNs: 1000 };
const RECORD_ROUNDS = 5;
const RECORD_DECISIONS = 200_000;
/** The only demo user the RBAC policy lets DELETE, so every request is a 200. */
const BENCH_USER = 'rick@the-citadel.com';
/** The default stack answering a user the policy refuses (Morty's DELETE: every request a 403). */
const DENIED = 'rbac embedded, denied';
/** The layers in the order they stack up; the last is the default stack. */
const LAYERS = ['bare', 'bare + helmet', 'same stack, no auth', 'same stack + authn', 'rbac embedded'];
const UNAUTHENTICATED = new Set(['bare', 'bare + helmet', 'same stack, no auth']);

/** Command-line options (see `--help`). */
interface BenchOptions {
  /** Rounds of alternated runs, for req/s and again for CPU per request. */
  readonly rounds: number;
  /** Seconds per req/s run (a CPU run takes three fifths of it). */
  readonly seconds: number;
  /** Part 1 only: skip decision latency and propagation. */
  readonly throughputOnly: boolean;
}

const latencyRow = (name: string, s: Propagation['total']) => [name, String(s.count), s.p50, s.p99, s.mean, s.max];

function printPropagation(title: string, p: Propagation, changeLabel: string): void {
  console.log(`\n${title}`);
  printTable(
    ['step', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'],
    [latencyRow('total', p.total), latencyRow(`  ${changeLabel}`, p.change), latencyRow('  exec', p.exec), latencyRow('  the app answers', p.decision)],
    2,
  );
}

async function main(options: BenchOptions): Promise<void> {
  const { rounds, seconds } = options;
  const cpuSeconds = Math.max(1, Math.round((seconds * 3) / 5));
  console.log(`Apps bench: DELETE /resource/x as ${BENCH_USER} (and, denied, as Morty), ${CONNECTIONS} connections, ${seconds} s per run, ${rounds} rounds alternated`);
  console.log(`${machineLine()}\n`);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const seed = loadDirectorySeed(config.directorySeedFile);
  const userId = (email: string) => {
    const user = seed.directory.users.find((u) => u.email === email);
    if (!user) throw new Error(`${email} is not in the seed directory`);
    return user.id;
  };
  const goals: (string | number)[][] = [];
  const printGoals = () => {
    console.log('\nGoals:');
    printTable(['measure', 'figure', 'goal', 'verdict'], goals);
  };
  const children: BenchChild[] = [];
  const latencyDir = mkdtempSync(join(tmpdir(), 'outpost-bench-latency-'));
  try {
    const { cp, edge } = await startBenchStack(children);

    const profileDir = process.env.BENCH_CPU_PROF;
    const apps = await forkBenchChild(join(__dirname, 'lib', 'apps-server.js'), profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    children.push(apps);
    const info = await apps.call<AppsInfo>('start', { username: BENCH_USER, edgeUrl: edge.edgeUrl, relayUrl: cp.url, appConnection: cp.appConnection });
    await waitForRegistration(cp, info.embeddedInstanceId);

    // 1. Throughput.
    const targets: LoadTarget[] = Object.entries(info.urls).map(([label, url]) => ({
      label,
      url: `${url}/resource/x`,
      method: 'DELETE',
      ...(UNAUTHENTICATED.has(label) ? {} : { headers: { authorization: `Bearer ${info.accessToken}` } }),
    }));
    const defaultStack = targets.find((t) => t.label === 'rbac embedded');
    if (!defaultStack) throw new Error('the apps child did not serve the default stack');
    targets.splice(targets.indexOf(defaultStack) + 1, 0, { ...defaultStack, label: DENIED, headers: { authorization: `Bearer ${info.mortyAccessToken}` }, expectStatus: 403 });
    const results = await alternate(targets, { connections: CONNECTIONS, durationSeconds: seconds, rounds, warmupSeconds: WARMUP_SECONDS });
    printMedians(results);
    console.log(`\nServer CPU time per request (the apps child's own clock, ${CONNECTIONS} connections, ${rounds} rounds of ${cpuSeconds} s alternated):`);
    const cpu = await cpuPerRequest(targets, apps, { connections: CONNECTIONS, durationSeconds: cpuSeconds, rounds });
    const samples = roundSamples(results, cpu);
    console.log('\nLayer by layer (each ratio per round against the same round\'s run, median (min–max); the last row is the default stack):');
    printLayers(samples, LAYERS);
    console.log('\nEvery target against bare Express (per round, median (min–max)):');
    printComparisons(samples, 'bare', targets.map((t) => t.label).filter((label) => label !== 'bare'));
    console.log('\nThe authenticated targets against the same stack without auth (per round, median (min–max)):');
    printComparisons(samples, 'same stack, no auth', targets.map((t) => t.label).filter((label) => !UNAUTHENTICATED.has(label)));
    const embedded = samples.get('rbac embedded');
    const denied = samples.get(DENIED);
    const noAuth = samples.get('same stack, no auth');
    const bare = samples.get('bare');
    if (!embedded || !denied || !noAuth || !bare) throw new Error('the apps child did not serve every layer');
    goals.push(goalRow('default stack (embedded) ÷ same app without auth', compareRounds(noAuth, embedded), GOALS.ofNoAuth));
    goals.push(goalRow('default stack, allowed (200) ÷ bare Express', compareRounds(bare, embedded), GOALS.ofBare));
    goals.push(goalRow('default stack, denied (403) ÷ bare Express', compareRounds(bare, denied), GOALS.ofBare));
    // The token middleware alone on bare Express, against the two its users would reach for instead (issue 34).
    const ours = samples.get('bare + @outpost/express-authz');
    if (!ours) throw new Error('the apps child did not serve the token middlewares');
    const floor = samples.get('bare, token sent');
    if (!floor) throw new Error('the apps child did not serve bare Express with the token sent');
    for (const other of ['bare + express-jwt, jwks-rsa', 'bare + express-oauth2-jwt-bearer']) {
      goals.push(goalRow(`@outpost/express-authz ahead of ${other.slice(7)} (their CPU ÷ ours)`, compareRounds(samples.get(other)!, ours), GOALS.ofOtherMiddleware));
      // The most any middleware could be ahead of it: its CPU against no middleware at all, the same token sent.
      goals.push([`  the ceiling: ${other.slice(7)} ÷ bare Express with the token sent`, `CPU ${formatSpread(compareRounds(samples.get(other)!, floor).cpu)}`, '—', 'a zero-cost middleware']);
    }
    goals.push(['@outpost/express-authz ÷ bare Express with the token sent (its own cost)', `CPU ${formatSpread(compareRounds(ours, floor).cpu)}`, '—', '1 would be free']);
    if (options.throughputOnly) {
      printGoals();
      return;
    }

    // 2. Embedded decision latency: an embedded edge in this process, on the same connection.
    const records = decisionRecords({ app: 'bench' });
    const embeddedHere = await openEmbeddedAuthorizer({
      relayUrl: cp.url,
      ...cp.appConnection,
      dataDir: latencyDir,
      discoveryIntervalMs: HOUR,
      directorySyncIntervalMs: HOUR,
      fullSyncIntervalMs: 24 * HOUR,
      logger: silentLogger(),
      hostname: 'bench-latency',
      version: 'bench',
      cacheSize: DECISIONS * 3, // room for every cold id: the cached run is a pure hit
      plugins: [records], // as the app's own embedded edge (src/apps/app-dependencies.ts)
    });
    try {
      const latency = await measureDecisionLatency(
        { authorizeNow: (r) => embeddedHere.authorizeNow(r), stats: () => embeddedHere.edge.authorizer.stats() },
        { principal: userId(BENCH_USER), action: 'DELETE', iterations: DECISIONS },
      );
      console.log(`\nEmbedded decision latency (authorizeNow(), as the middleware calls it), ${DECISIONS} sequential decisions each (µs):`);
      const us = (v: number) => v * 1000;
      printTable(
        ['decision', 'p50 µs', 'p99 µs', 'mean µs', 'max µs', 'cache hits / misses'],
        [
          ['cold (cache miss, new resource id and property each)', us(latency.cold.p50), us(latency.cold.p99), us(latency.cold.mean), us(latency.cold.max), `${latency.coldHits} hits`],
          ['cached (same request)', us(latency.cached.p50), us(latency.cached.p99), us(latency.cached.mean), us(latency.cached.max), `${latency.cachedMisses} misses`],
        ],
      );
      goals.push(['embedded decision, cached, p50', `${fmt(us(latency.cached.p50), 2)} µs`, `< ${GOALS.cachedP50Us} µs`, verdict(us(latency.cached.p50) < GOALS.cachedP50Us)]);
      goals.push(['embedded decision, cold, p50', `${fmt(us(latency.cold.p50), 1)} µs`, `< ${GOALS.coldP50Us} µs`, verdict(us(latency.cold.p50) < GOALS.coldP50Us)]);

      // Decision records on the hot path: the same cached decision with and without queueing its record.
      const request = { principal: userId(BENCH_USER), action: 'DELETE', resource: { type: 'Resource', id: 'record-cost' }, policyPath: 'rbac.DELETE' };
      const added = reportRecordCost(embeddedHere.edge, records.log, request, RECORD_ROUNDS, RECORD_DECISIONS);
      goals.push(['decision record, added per decision (median of rounds)', `${fmt(added, 0)} ns`, `< ${GOALS.recordNs} ns`, verdict(added < GOALS.recordNs)]);
    } finally {
      await embeddedHere.close();
    }

    // 3. Propagation into the app.
    const setup = { cp, appUrl: info.urls['rbac embedded'] as string, instanceId: info.embeddedInstanceId, mortyId: userId('morty@the-citadel.com'), mortyToken: info.mortyAccessToken, policiesDir: config.policiesDir };
    await measureDirectoryPropagation(setup, 10); // warm-up of every path, not counted
    const directory = await measureDirectoryPropagation(setup, PROPAGATIONS);
    printPropagation(`Directory grant/revoke → sync_edge_directory → the app's next answer, ${PROPAGATIONS} times:`, directory, 'admin API change');
    await measurePolicyPropagation(setup, 10);
    const policy = await measurePolicyPropagation(setup, PROPAGATIONS);
    printPropagation(`Policy push → discovery → the app's next answer, ${PROPAGATIONS} times:`, policy, 'admin API push');
    goals.push(['directory change → app answer, p99', `${fmt(directory.total.p99, 1)} ms`, `< ${GOALS.directoryP99Ms} ms`, verdict(directory.total.p99 < GOALS.directoryP99Ms)]);
    goals.push(['policy push → app answer, p99', `${fmt(policy.total.p99, 1)} ms`, `< ${GOALS.policyP99Ms} ms`, verdict(policy.total.p99 < GOALS.policyP99Ms)]);
  } finally {
    for (const child of children.reverse()) await child.stop();
    closeCalls();
    rmSync(latencyDir, { recursive: true, force: true });
  }
  printGoals();
}

const command = scriptCommand(
  'npm run bench:apps --',
  "the sample apps' request path layer by layer from bare Express to the default stack (allowed and denied), embedded decision latency, propagation into the app",
  'BENCH_CPU_PROF=/tmp/prof npm run bench:apps   # also writes a CPU profile of the apps child',
)
  .option('--rounds <n>', 'rounds of alternated runs (req/s, then CPU per request)', wholeNumber(1, 100), 3)
  .option('--seconds <n>', 'seconds per req/s run; a CPU run takes three fifths of it', wholeNumber(1, 100), 5)
  .option('--throughput-only', 'part 1 only: skip decision latency and propagation', false)
  .parse();

main(command.opts<BenchOptions>()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
