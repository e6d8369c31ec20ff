// Control plane, relay and edge authorizer on loopback:  npm run bench:relay
//
// Processes: the control plane + relay (lib/control-plane-server, started with
// --expose-gc so its memory can be measured after a full GC), a real edge plus a bare
// Express JSON endpoint (lib/edge-server), and for the fan-out part 1,000 fake edges
// (lib/fake-edges). This process makes the operators' HTTP calls and runs autocannon.
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { forkBenchChild, type BenchChild } from './lib/child-harness';
import { closeCalls, isRequestBody, waitForRegistration } from './lib/control-plane-calls';
import type { ControlPlaneInfo } from './lib/control-plane-server';
import type { EdgeInfo } from './lib/edge-server';
import type { FakeEdgesInfo } from './lib/fake-edges';
import { alternate, printMedians, sequentialLatency, type LoadTarget } from './lib/load';
import { measureExecRoundTrips, measureFanOut, measurePropagation, type RelayBenchSetup } from './lib/relay-measurements';
import type { LatencySummary } from './lib/stats';
import { fmt, machineLine, printTable, verdict } from './lib/table';

const EXEC_ITERATIONS = 200;
const PROPAGATION_ITERATIONS = 50;
const FAKE_EDGES = 1_000;
const IN_FLIGHT = 16;
const WARMUP_EXECS = 200;
const CLIENTS = 50;
const SEQUENTIAL_REQUESTS = 2_000;
const GOALS = { changedDiscoveryP99Ms: 50, commandsPerSecond: 500, bytesPerEdge: 50 * 1024, decisionP99Ms: 2 };

type Memory = { rss: number; heapUsed: number; external: number; gc: boolean };
const row = (name: string, s: LatencySummary) => [name, String(s.count), s.p50, s.p99, s.mean, s.max];
const LATENCY_HEADERS = ['measure', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'];

async function main(): Promise<void> {
  console.log(`Relay bench: ${machineLine()}\n`);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const morty = loadDirectorySeed(config.directorySeedFile).directory.users.find((u) => u.email === 'morty@the-citadel.com');
  if (!morty) throw new Error('morty is not in the seed directory');
  const children: BenchChild[] = [];
  const summary: (string | number)[][] = [];
  try {
    const controlPlane = await forkBenchChild(join(__dirname, 'lib', 'control-plane-server.js'), ['--expose-gc']);
    children.push(controlPlane);
    const cp = await controlPlane.call<ControlPlaneInfo>('start');
    const edgeChild = await forkBenchChild(join(__dirname, 'lib', 'edge-server.js'));
    children.push(edgeChild);
    const credentials = { relayUrl: cp.url, connectionId: cp.connectionId, connectionSecret: cp.connectionSecret };
    const edge = await edgeChild.call<EdgeInfo>('start', credentials);
    await waitForRegistration(cp, edge.instanceId);
    const setup: RelayBenchSetup = { cp, edgeUrl: edge.edgeUrl, instanceId: edge.instanceId, policiesDir: config.policiesDir, mortyId: morty.id };

    const before = await controlPlane.call<Memory>('memory');
    const fakes = await forkBenchChild(join(__dirname, 'lib', 'fake-edges.js'));
    children.push(fakes);
    const fleet = await fakes.call<FakeEdgesInfo>('start', { ...credentials, count: FAKE_EDGES, prefix: 'bench-fake-' });
    const after = await controlPlane.call<Memory>('memory');
    const per = (field: 'rss' | 'heapUsed' | 'external') => (after[field] - before[field]) / FAKE_EDGES;
    console.log(`${FAKE_EDGES} fake edges connected and registered in ${fmt(fleet.ms / 1000, 1)} s; relay process memory${after.gc ? ' after a full GC' : ''}:`);
    printTable(
      ['memory', 'before MB', `with ${FAKE_EDGES} edges MB`, 'per edge KB'],
      (['rss', 'heapUsed', 'external'] as const).map((f) => [f, before[f] / 2 ** 20, after[f] / 2 ** 20, per(f) / 1024]),
    );
    summary.push(['relay memory per connected edge (RSS delta)', `${fmt(per('rss') / 1024, 1)} KB`, '< 50 KB', verdict(per('rss') < GOALS.bytesPerEdge)]);

    console.log(`\nAn exec (discovery) to each of the ${FAKE_EDGES} fake edges in turn:`);
    await measureFanOut(cp, fleet.instanceIds.slice(0, WARMUP_EXECS), IN_FLIGHT); // JIT warm-up, not counted
    const fanOut = [
      ['sequential', await measureFanOut(cp, fleet.instanceIds, 1)],
      [`${IN_FLIGHT} in flight`, await measureFanOut(cp, fleet.instanceIds, IN_FLIGHT)],
    ] as const;
    printTable(['mode', 'commands/s', 'p50 ms', 'p99 ms'], fanOut.map(([mode, r]) => [mode, r.perSecond, r.latency.p50, r.latency.p99]), 2);
    const answered = await fakes.call<number>('answered');
    const expected = 2 * FAKE_EDGES + WARMUP_EXECS;
    if (answered !== expected) throw new Error(`the fake edges answered ${answered} commands, expected ${expected}`);
    for (const [mode, r] of fanOut) {
      summary.push([`commands/s, ${mode}`, fmt(r.perSecond, 0), `≥ ${GOALS.commandsPerSecond}`, verdict(r.perSecond >= GOALS.commandsPerSecond)]);
    }
    await fakes.stop();
    children.pop();

    console.log(`\nExec round trip (POST …/exec → edge confirms → {"result":{}}), one real edge, ${EXEC_ITERATIONS} sequential execs each:`);
    const trips = await measureExecRoundTrips(setup, EXEC_ITERATIONS);
    printTable(LATENCY_HEADERS, Object.entries(trips).map(([name, s]) => row(name, s)), 2);
    const changed = trips['discovery, changed image pushed before each'] as LatencySummary;
    summary.push(['discovery round trip, changed image, p99', `${fmt(changed.p99, 2)} ms`, `< ${GOALS.changedDiscoveryP99Ms} ms`, verdict(changed.p99 < GOALS.changedDiscoveryP99Ms)]);

    console.log(`\nPropagation: policy push (admin API) → discovery exec → changed decision at the edge, ${PROPAGATION_ITERATIONS} times:`);
    const propagation = await measurePropagation(setup, PROPAGATION_ITERATIONS);
    printTable(
      LATENCY_HEADERS,
      [row('total', propagation.total), row('  push', propagation.push), row('  exec discovery', propagation.exec), row('  decision at the edge', propagation.decision)],
      2,
    );

    console.log(`\nEdge decision API at ${CLIENTS} concurrent clients (autocannon), against a bare Express JSON endpoint in the same process:`);
    const body = isRequestBody(morty.id, 'rbac.DELETE', 'mega-seed');
    const post = (label: string, url: string): LoadTarget => ({ label, url: `${url}/api/v2/authz/is`, method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const targets = [post('edge /api/v2/authz/is', edge.edgeUrl), post('bare Express JSON', edge.bareUrl)];
    const saturated = await alternate(targets, { connections: CLIENTS, durationSeconds: 5, rounds: 2, warmupSeconds: 2 });
    printMedians(saturated);
    const ratio = saturated.medianRps('edge /api/v2/authz/is') / saturated.medianRps('bare Express JSON');
    console.log(`\nedge/bare throughput ratio: ${fmt(ratio, 2)}`);
    console.log(`\nUnloaded service time: 1 client, ${SEQUENTIAL_REQUESTS} requests back to back on one keep-alive connection:`);
    const unloaded = [await sequentialLatency(targets[0] as LoadTarget, SEQUENTIAL_REQUESTS), await sequentialLatency(targets[1] as LoadTarget, SEQUENTIAL_REQUESTS)];
    printTable(LATENCY_HEADERS, unloaded.map((s, i) => row((targets[i] as LoadTarget).label, s)), 3);
    const edgeSaturatedP99 = saturated.medianP99('edge /api/v2/authz/is');
    summary.push([`edge decision p99, ${CLIENTS} clients, saturated (bare: ${fmt(saturated.medianP99('bare Express JSON'), 0)} ms)`, `${fmt(edgeSaturatedP99, 0)} ms`, '< 2 ms', verdict(edgeSaturatedP99 < GOALS.decisionP99Ms)]);
    const edgeUnloaded = unloaded[0] as LatencySummary;
    summary.push([`edge decision p99, 1 client (bare: ${fmt(unloaded[1]?.p99 ?? NaN, 2)} ms)`, `${fmt(edgeUnloaded.p99, 2)} ms`, '< 2 ms', verdict(edgeUnloaded.p99 < GOALS.decisionP99Ms)]);
  } finally {
    for (const child of children.reverse()) await child.stop();
    closeCalls();
  }
  console.log('\nGoals:');
  printTable(['measure', 'figure', 'goal', 'verdict'], summary);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
