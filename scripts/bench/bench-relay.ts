// Control plane, relay and edge authorizer on loopback:  npm run bench:relay
//
// Processes: the control plane + relay (lib/control-plane-server, started with
// --expose-gc so its memory can be measured after a full GC), a real edge plus the same
// decision routes behind Express and bare JSON endpoints (lib/edge-server), and for the
// fan-out part 1,000 fake edges (lib/fake-edges): execs one by one, then one broadcast to
// all (docs/reference/api.md, "Broadcast"), and the same execs by the default path alternated
// with the opt-in bare exec (RELAY_BARE_EXEC=on). This process makes the operators' HTTP calls and
// runs autocannon.
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { forkBenchChild, type BenchChild } from './lib/child-harness';
import { startBenchStack } from './lib/bench-stack';
import { closeCalls, isRequestBody } from './lib/control-plane-calls';
import { evaluationBody, evaluationsBody } from './lib/authzen-bodies';
import { compareRounds, formatSpread, goalRow, printComparisons, spreadOf } from './lib/compare-rounds';
import { measureHandlerCosts } from './lib/handler-costs';
import type { EdgeInfo } from './lib/edge-server';
import type { FakeEdgesInfo } from './lib/fake-edges';
import { alternate, cpuPerRequest, printMedians, roundSamples, runLoad, sequentialLatency, type LoadTarget } from './lib/load';
import { measureBroadcast, measureExecRoundTrips, measureFanOut, measurePropagation, type RelayBenchSetup } from './lib/relay-measurements';
import { summarize, type LatencySummary } from './lib/stats';
import { fmt, machineLine, printTable, verdict } from './lib/table';
import { scriptCommand } from '../lib/script-command';

const EXEC_ITERATIONS = 200;
const PROPAGATION_ITERATIONS = 50;
const FAKE_EDGES = 1_000;
const IN_FLIGHT = 16;
const WARMUP_EXECS = 200;
const CLIENTS = 50;
const SEQUENTIAL_REQUESTS = 2_000;
const OPEN_LOOP_RATE = 1_000;
const BATCH = 25;
/** Rounds of the default path's fan-outs alternated with the opt-in bare exec's. */
const PATH_ROUNDS = 3;
const BROADCAST_ROUNDS = 5;
const BROADCASTS_PER_ROUND = 10;
const GOALS = { changedDiscoveryP99Ms: 50, commandsPerSecond: 500, bytesPerEdge: 50 * 1024, ofBareNode: 0.85, openLoopP99Ms: 5, broadcastP99Ms: 200 };

/** The baseline of the sidecar's ratios: the same decision behind a bare node:http handler. */
const BARE_NODE = 'bare node:http JSON';

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
    const { controlPlane, cp, edgeChild, edge, credentials } = await startBenchStack(children, ['--expose-gc']);
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
    for (const [mode, r] of fanOut) {
      summary.push([`commands/s, ${mode}`, fmt(r.perSecond, 0), `≥ ${GOALS.commandsPerSecond}`, verdict(r.perSecond >= GOALS.commandsPerSecond)]);
    }

    // The same fan-outs by the opt-in bare exec (RELAY_BARE_EXEC=on: the same relay behind a
    // second listener), alternated round by round with the default path's.
    console.log(`\nThe same fan-outs, the default path (one Express route) alternated with the opt-in bare exec (RELAY_BARE_EXEC=on), ${PATH_ROUNDS} rounds:`);
    const bareCp = { ...cp, url: cp.bareExecUrl };
    const pathRows: (string | number)[][] = [];
    const pathRatios: Record<string, number[]> = {};
    for (let round = 1; round <= PATH_ROUNDS; round += 1) {
      for (const inFlight of [1, IN_FLIGHT]) {
        const viaExpress = await measureFanOut(cp, fleet.instanceIds, inFlight);
        const viaBare = await measureFanOut(bareCp, fleet.instanceIds, inFlight);
        const ratio = viaBare.perSecond / viaExpress.perSecond;
        (pathRatios[inFlight] ??= []).push(ratio);
        pathRows.push([String(round), inFlight === 1 ? 'sequential' : `${IN_FLIGHT} in flight`, viaExpress.perSecond, viaExpress.latency.p50, viaBare.perSecond, viaBare.latency.p50, ratio]);
      }
    }
    printTable(['round', 'mode', 'default commands/s', 'default p50 ms', 'bare exec commands/s', 'bare exec p50 ms', 'bare exec ÷ default, commands/s'], pathRows, 2);
    for (const inFlight of [1, IN_FLIGHT]) {
      const spread = formatSpread(spreadOf(pathRatios[inFlight]!));
      console.log(`bare exec ÷ default commands/s, ${inFlight === 1 ? 'sequential' : `${IN_FLIGHT} in flight`}, per round, median (min–max): ${spread}`);
      summary.push([`  commands/s, RELAY_BARE_EXEC=on ÷ the default, ${inFlight === 1 ? 'sequential' : `${IN_FLIGHT} in flight`} (per round)`, spread, '—', '—']);
    }

    console.log(
      `\nOne broadcast (discovery) to all ${FAKE_EDGES} fake edges, against the same ${FAKE_EDGES} commands as execs (${IN_FLIGHT} in flight); ` +
        `${BROADCAST_ROUNDS} rounds, each an exec fan-out then ${BROADCASTS_PER_ROUND} broadcasts:`,
    );
    const rounds = await measureBroadcast(cp, fleet.instanceIds, { rounds: BROADCAST_ROUNDS, perRound: BROADCASTS_PER_ROUND, inFlight: IN_FLIGHT });
    const broadcasts = summarize(rounds.flatMap((r) => r.broadcastMs));
    printTable(['measure', 'n', 'p50 ms', 'p99 ms', 'max ms'], [['one broadcast, all confirmed', String(broadcasts.count), broadcasts.p50, broadcasts.p99, broadcasts.max]], 2);
    // Per round: the round's median broadcast ÷ the round's exec fan-out (below 1: the broadcast is faster).
    const ratios = rounds.map((r) => summarize(r.broadcastMs).p50 / r.execFanOutMs).sort((x, y) => x - y);
    const spread = `${fmt(ratios[Math.floor(ratios.length / 2)]!, 3)} (${fmt(ratios[0]!, 3)}–${fmt(ratios[ratios.length - 1]!, 3)})`;
    console.log(`broadcast ÷ ${FAKE_EDGES} execs (${IN_FLIGHT} in flight), per round, median (min–max): ${spread}`);
    summary.push([`one broadcast to ${FAKE_EDGES} fake edges, all confirmed, p99`, `${fmt(broadcasts.p99, 1)} ms`, `< ${GOALS.broadcastP99Ms} ms`, verdict(broadcasts.p99 < GOALS.broadcastP99Ms)]);
    summary.push([`  its time ÷ ${FAKE_EDGES} execs ${IN_FLIGHT} in flight (per round)`, spread, '—', '—']);

    const answered = await fakes.call<number>('answered');
    const expected = 2 * FAKE_EDGES + 4 * PATH_ROUNDS * FAKE_EDGES + WARMUP_EXECS + BROADCAST_ROUNDS * (1 + BROADCASTS_PER_ROUND) * FAKE_EDGES;
    if (answered !== expected) throw new Error(`the fake edges answered ${answered} commands, expected ${expected}`);
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

    await measureSidecar(edge, edgeChild, morty.id, summary);
    console.log('\nWhat one `is` decision costs in-process, piece by piece (mean µs over 200,000 runs each):');
    const costs = measureHandlerCosts({ policiesDir: config.policiesDir, directory: loadDirectorySeed(config.directorySeedFile).directory, principal: morty.id, body: isRequestBody(morty.id, 'rbac.DELETE', 'mega-seed') });
    printTable(['piece', 'µs'], Object.entries(costs).map(([piece, us]) => [piece, us]), 2);
  } finally {
    for (const child of children.reverse()) await child.stop();
    closeCalls();
  }
  console.log('\nGoals:');
  printTable(['measure', 'figure', 'goal', 'verdict'], summary);
}

/**
 * The sidecar's decision API: closed-loop throughput against the same routes behind
 * Express and bare JSON endpoints (the evidence for serving decisions on node:http),
 * latency at a fixed open-loop rate, and a batch of evaluations against as many calls.
 */
async function measureSidecar(edge: EdgeInfo, edgeChild: BenchChild, principal: string, summary: (string | number)[][]): Promise<void> {
  const json = { 'content-type': 'application/json' };
  const post = (label: string, url: string, body: string): LoadTarget => ({ label, url, method: 'POST', headers: json, body });
  const is = isRequestBody(principal, 'rbac.DELETE', 'mega-seed');
  const targets = [
    post('edge /api/v2/authz/is (node:http)', `${edge.edgeUrl}/api/v2/authz/is`, is),
    post('edge /access/v1/evaluation (node:http)', `${edge.edgeUrl}/access/v1/evaluation`, evaluationBody(principal, 'DELETE', 'mega-seed')),
    post('same is route behind Express', `${edge.expressEdgeUrl}/api/v2/authz/is`, is),
    post(BARE_NODE, `${edge.bareNodeUrl}/api/v2/authz/is`, is),
    post('bare Express JSON', `${edge.bareUrl}/api/v2/authz/is`, is),
  ];
  console.log(`\nSidecar decision API, closed loop: ${CLIENTS} connections (autocannon), the same \`is\` body everywhere:`);
  const closed = await alternate(targets, { connections: CLIENTS, durationSeconds: 5, rounds: 3, warmupSeconds: 2 });
  printMedians(closed);

  console.log(`\nServer CPU time per request (the edge child's own clock, ${CLIENTS} connections, 3 rounds of 3 s alternated):`);
  const cpu = await cpuPerRequest(targets, edgeChild, { connections: CLIENTS, durationSeconds: 3, rounds: 3 });
  const samples = roundSamples(closed, cpu);
  console.log('\nAgainst the bare node:http JSON endpoint, each ratio per round against the same round\'s run, median (min–max):');
  printComparisons(samples, BARE_NODE, targets.map((t) => t.label).filter((label) => label !== BARE_NODE));
  // The verdict uses CPU per request: the load generator shares the machine's two cores, and
  // when it saturates first every target's req/s converges to 1 and says nothing.
  const comparison = compareRounds(samples.get(BARE_NODE)!, samples.get(targets[0]!.label)!);
  summary.push(goalRow('sidecar is ÷ bare node:http JSON (req/s converges to 1 when autocannon is the bottleneck)', comparison, GOALS.ofBareNode));

  console.log(`\nOpen loop: ${OPEN_LOOP_RATE} decisions/s offered for 10 s over 10 connections:`);
  const open = [];
  for (const target of [targets[0]!, targets[3]!]) open.push(await runLoad(target, { connections: 10, durationSeconds: 10, overallRate: OPEN_LOOP_RATE }));
  printTable(['target', 'answered/s', 'p50 ms', 'p99 ms', 'failures'], open.map((r) => [r.label, r.rps, r.p50, r.p99, String(r.failures)]));
  summary.push([`sidecar is p99 at ${OPEN_LOOP_RATE}/s open loop (bare node:http: ${open[1]!.p99} ms)`, `${open[0]!.p99} ms`, `< ${GOALS.openLoopP99Ms} ms`, verdict(open[0]!.p99 < GOALS.openLoopP99Ms)]);

  console.log(`\nA batch of ${BATCH} evaluations in one /access/v1/evaluations call against ${BATCH} /access/v1/evaluation calls, 1 client, back to back:`);
  const single = post('1 evaluation', `${edge.edgeUrl}/access/v1/evaluation`, evaluationBody(principal, 'DELETE', 'mega-seed'));
  const batch = post(`batch of ${BATCH}`, `${edge.edgeUrl}/access/v1/evaluations`, evaluationsBody(principal, BATCH));
  const [one, many] = [await sequentialLatency(single, SEQUENTIAL_REQUESTS), await sequentialLatency(batch, SEQUENTIAL_REQUESTS / 4)];
  printTable(
    ['way', `ms for ${BATCH} decisions (p50)`, 'decisions/s, 1 client'],
    [
      [`${BATCH} calls`, one.p50 * BATCH, 1000 / one.p50],
      ['1 batch call', many.p50, (1000 / many.p50) * BATCH],
    ],
    3,
  );

  console.log(`\nUnloaded service time: 1 client, ${SEQUENTIAL_REQUESTS} requests back to back on one keep-alive connection:`);
  const unloaded = [await sequentialLatency(targets[0]!, SEQUENTIAL_REQUESTS), await sequentialLatency(targets[3]!, SEQUENTIAL_REQUESTS)];
  printTable(LATENCY_HEADERS, unloaded.map((l, i) => row([targets[0]!, targets[3]!][i]!.label, l)), 3);
}

scriptCommand(
  'npm run bench:relay --',
  'control plane, relay and edge on loopback: exec round trips, propagation, 1,000 fake edges on one relay (execs and one broadcast), the sidecar against bare node:http, AuthZEN batches',
  'npm run bench:relay',
).parse();

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
