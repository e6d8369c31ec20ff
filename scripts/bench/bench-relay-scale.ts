// The relay's scale goals of issue 22 on loopback:  npm run bench:relay-scale
//
// Processes: the control plane + relay (lib/control-plane-server, --expose-gc so its memory is
// read after full GCs), the floor under exec (lib/bare-relay: HTTP → ws → HTTP and nothing
// else), real edge runtimes (lib/real-edges, several per child) and fake edges (lib/fake-edges,
// one child per source address 127.0.0.x). This process makes the operators' HTTP calls.
//
// 1. Real edges: 100 edge runtimes; a changed policy image is pushed, then one broadcast of
//    `discovery` makes every one download, check and swap it in; timed to the answer.
// 2. Exec against the bare path: sequential execs to one fake edge alternated, round by round,
//    by the default path, by the opt-in bare exec (RELAY_BARE_EXEC=on, the same relay behind a
//    second listener) and through the bare server; the ratios of p50s per round.
// 3. The fleet: exec latency to random edges of a small fleet, then as many edges as the relay
//    process can hold (its open-file limit, at most 50,000), the RSS per edge, and the same
//    exec latency again.
//
// One part alone: npm run bench:relay-scale -- --only real-edges (part 1) or --only exec (part 2);
// --only fleet runs parts 2 and 3 (the fleet needs part 2's first fake edges).
import { cpus } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import type { Stalls } from './lib/child-endpoint';
import { forkBenchChild, type BenchChild } from './lib/child-harness';
import { formatSpread, spreadOf } from './lib/compare-rounds';
import { broadcastCommand, closeCalls, pushPolicy, request } from './lib/control-plane-calls';
import type { ControlPlaneInfo } from './lib/control-plane-server';
import type { FakeEdgesInfo } from './lib/fake-edges';
import { sequentialLatency, type LoadTarget } from './lib/load';
import { policyVariant } from './lib/relay-measurements';
import { median, msSince, summarize, type LatencySummary } from './lib/stats';
import { fmt, machineLine, printTable, verdict } from './lib/table';
import { InvalidArgumentError } from 'commander';
import { scriptCommand } from '../lib/script-command';

/** Real edge runtimes, in children of this many each. */
const REAL_EDGES = 100;
const REAL_EDGES_PER_CHILD = 10;
const REAL_BROADCASTS = 5;
/**
 * Exec against the bare path: rounds, and sequential requests per target per round, after one
 * unmeasured warm-up of each path: without it the first rounds still ran code V8 had not
 * optimized yet (p99 3–4 ms against 0.5 ms later), a different amount on each path.
 */
const RATIO_ROUNDS = 5;
const RATIO_REQUESTS = 1_000;
const RATIO_WARMUP = 3_000;
/** The fleet: the small one, the goal, and the descriptors the relay keeps for everything else. */
const SMALL_FLEET = 1_000;
const FLEET_GOAL = 50_000;
const RESERVED_DESCRIPTORS = 1_000;
/** Edges per fake-edge child (each child is a process with the same open-file limit). */
const EDGES_PER_CHILD = 10_000;
/** Sequential execs to random edges per round, and rounds, at each fleet size. */
const FLEET_EXECS = 1_000;
const FLEET_ROUNDS = 3;
/** The parts `--only` may name. */
const PARTS = ['real-edges', 'exec', 'fleet'] as const;
type Part = (typeof PARTS)[number];
const GOALS = { realBroadcastMs: 1_000, execOfBare: 1.5, bytesPerEdge: 20 * 1024, p99Unchanged: 1.25 };

type Memory = { rss: number; heapUsed: number; external: number; gc: boolean };
const LATENCY_HEADERS = ['measure', 'n', 'p50 ms', 'p99 ms', 'mean ms', 'max ms'];
const row = (name: string, s: LatencySummary) => [name, String(s.count), s.p50, s.p99, s.mean, s.max];
const spread = (values: readonly number[]) => formatSpread(spreadOf(values));

function execTarget(cp: ControlPlaneInfo, url: string, instanceId: string, label: string): LoadTarget {
  return {
    label,
    url: `${url}/api/v2/management/control_plane/exec`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-tenant-id': cp.tenantId, authorization: `basic ${cp.discoveryApiKey}` },
    body: JSON.stringify({ id: instanceId, command: { discovery: {} } }),
  };
}

/** The tenant's registrations that are connected, all pages. */
async function connectedIds(cp: ControlPlaneInfo): Promise<Set<string>> {
  const found = new Set<string>();
  let token: string | undefined;
  do {
    const query = `page_size=1000${token ? `&page_token=${token}` : ''}`;
    const res = await request(`${cp.url}/api/v2/management/control_plane/instance_registrations?${query}`, 'GET', { 'service-tenant-id': cp.tenantId, authorization: `basic ${cp.discoveryApiKey}` });
    const body = JSON.parse(res.text) as { result: { id: string; info: { connected: boolean } }[]; next_page_token?: string };
    for (const r of body.result) if (r.info.connected) found.add(r.id);
    token = body.next_page_token;
  } while (token);
  return found;
}

/** The CPU time (µs) the children have used, summed. */
async function cpuOf(children: readonly BenchChild[]): Promise<number> {
  let total = 0;
  for (const child of children) total += await child.call<number>('cpu');
  return total;
}

/** Sequential execs to random edges of `ids`, `rounds` × `count`; every one must answer 200. */
async function execToRandomEdges(cp: ControlPlaneInfo, ids: readonly string[], rounds: number, count: number): Promise<LatencySummary> {
  const samples: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    for (let i = 0; i < count; i += 1) {
      const target = execTarget(cp, cp.url, ids[Math.floor(Math.random() * ids.length)]!, 'exec');
      const t = process.hrtime.bigint();
      const res = await request(target.url, 'POST', target.headers!, target.body);
      samples.push(msSince(t));
      if (res.status !== 200) throw new Error(`exec answered ${res.status}: ${res.text.slice(0, 200)}`);
    }
  }
  return summarize(samples);
}

type Fork = (module: string, execArgv?: readonly string[]) => Promise<BenchChild>;

/** Part 1: one broadcast of `discovery` to 100 real edge runtimes after each push of a changed image. */
async function realEdgeBroadcasts(controlPlane: BenchChild, cp: ControlPlaneInfo, policiesDir: string, fork: Fork, stop: (child: BenchChild) => Promise<void>, summary: (string | number)[][]): Promise<void> {
  const realChildren: BenchChild[] = [];
  for (let c = 0; c < REAL_EDGES / REAL_EDGES_PER_CHILD; c += 1) realChildren.push(await fork('real-edges.js'));
  const started = process.hrtime.bigint();
  const real: string[] = [];
  for (const [c, child] of realChildren.entries()) {
    const args = { relayUrl: cp.url, connectionId: cp.connectionId, connectionSecret: cp.connectionSecret, count: REAL_EDGES_PER_CHILD, prefix: `real-${c}-` };
    real.push(...(await child.call<{ instanceIds: string[] }>('start', args)).instanceIds);
  }
  for (const deadline = Date.now() + 30_000; ; ) {
    const connected = await connectedIds(cp);
    if (real.every((id) => connected.has(id))) break;
    if (Date.now() > deadline) throw new Error('the real edges did not all register within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  console.log(`\n${real.length} real edge runtimes (${REAL_EDGES / REAL_EDGES_PER_CHILD} processes of ${REAL_EDGES_PER_CHILD}) started, synced and registered in ${fmt(msSince(started) / 1000, 1)} s.`);
  console.log(`One broadcast (discovery) after each push of a changed rbac image: every edge downloads the image, checks it and swaps it in before it confirms; ${REAL_BROADCASTS} pushes:`);
  const realMs: number[] = [];
  const partial: string[] = [];
  const cpuMs = { relay: 0, edges: 0 };
  for (let i = 0; i < REAL_BROADCASTS; i += 1) {
    const digest = await pushPolicy(cp, 'rbac', policyVariant(policiesDir, 1_000 + i, i % 2 === 0));
    const [relayBefore, edgesBefore] = [await controlPlane.call<number>('cpu'), await cpuOf(realChildren)];
    const t = process.hrtime.bigint();
    const result = await broadcastCommand(cp, 'discovery');
    realMs.push(msSince(t));
    cpuMs.relay += ((await controlPlane.call<number>('cpu')) - relayBefore) / 1000 / REAL_BROADCASTS;
    cpuMs.edges += ((await cpuOf(realChildren)) - edgesBefore) / 1000 / REAL_BROADCASTS;
    // A broadcast that misses edges is a finding, not the end of the bench: recorded, and the other parts still run.
    if (result.sent !== real.length || result.confirmed !== real.length) {
      partial.push(`push ${i + 1}: ${result.confirmed} of ${result.sent} confirmed (${real.length} edges), ${result.not_connected} not connected; failed: ${JSON.stringify(result.failed.slice(0, 5))}`);
      continue;
    }
    const listed = await request(`${cp.url}/api/v2/management/control_plane/instance_registrations?page_size=1000`, 'GET', { 'service-tenant-id': cp.tenantId, authorization: `basic ${cp.discoveryApiKey}` });
    const behind = (JSON.parse(listed.text) as { result: { info: { connected: boolean; policy_digest: string | null } }[] }).result.filter((r) => r.info.connected && r.info.policy_digest !== digest);
    if (behind.length > 0) partial.push(`push ${i + 1}: ${behind.length} edges confirmed without running the pushed image`);
  }
  if (partial.length > 0) console.log(`Broadcasts that did not reach every edge on the new image:\n  ${partial.join('\n  ')}`);
  summary.push([`broadcasts that reached all ${real.length} real edges on the new image`, `${REAL_BROADCASTS - partial.length} of ${REAL_BROADCASTS}`, 'all', verdict(partial.length === 0)]);
  const realSummary = summarize(realMs);
  printTable(LATENCY_HEADERS, [row(`one broadcast, ${real.length} real edges, all on the new image`, realSummary)], 2);
  console.log(
    `CPU per broadcast (the processes' own clocks, mean): relay ${fmt(cpuMs.relay, 0)} ms, the ${real.length} edges ${fmt(cpuMs.edges, 0)} ms ` +
      `(${fmt(cpuMs.edges / real.length, 1)} ms each); on ${cpus().length} otherwise idle cores the broadcast could not take less than ${fmt((cpuMs.relay + cpuMs.edges) / cpus().length, 0)} ms`,
  );
  summary.push([`one broadcast to ${real.length} real edge runtimes, each a real discovery of a changed image, max of ${REAL_BROADCASTS}`, `${fmt(realSummary.max, 1)} ms`, `< ${GOALS.realBroadcastMs} ms`, verdict(realSummary.max < GOALS.realBroadcastMs)]);
  for (const child of realChildren) await stop(child);
}

/**
 * Part 2: sequential execs to one fake edge by the default path (one Express route), by the
 * opt-in bare exec (RELAY_BARE_EXEC=on: the same relay behind a second listener) and through
 * the bare server, round by round; the fleet's first fake edges, for part 3.
 */
async function execAgainstBare(controlPlane: BenchChild, cp: ControlPlaneInfo, fork: Fork, summary: (string | number)[][]): Promise<{ small: FakeEdgesInfo; beforeFleet: Memory; fleetChildren: BenchChild[] }> {
  const bare = await fork('bare-relay.js');
  const bareUrl = (await bare.call<{ url: string }>('start')).url;
  const bareEdge = await fork('fake-edges.js');
  await bareEdge.call<FakeEdgesInfo>('start', { relayUrl: bareUrl, connectionId: 'bare', connectionSecret: 'bare', count: 1, prefix: 'bare-' });
  const fleetChildren = [await fork('fake-edges.js')];
  const beforeFleet = await controlPlane.call<Memory>('memory');
  const small = await fleetChildren[0]!.call<FakeEdgesInfo>('start', {
    relayUrl: cp.url, connectionId: cp.connectionId, connectionSecret: cp.connectionSecret, count: SMALL_FLEET, prefix: 'small-', localAddress: '127.0.0.2',
  });
  const execOne = execTarget(cp, cp.url, small.instanceIds[0]!, 'exec (Express, the default)');
  const bareExecOne = execTarget(cp, cp.bareExecUrl, small.instanceIds[0]!, 'exec (RELAY_BARE_EXEC=on)');
  const bareOne = execTarget(cp, bareUrl, 'bare-0000', 'bare HTTP → ws → HTTP');
  console.log(
    `\nExec against the bare path: ${RATIO_WARMUP} unmeasured requests on each path, then ${RATIO_ROUNDS} rounds, each ${RATIO_REQUESTS} sequential execs to one fake edge ` +
      `by the default path, then as many by the opt-in bare exec (the same relay), then through the bare server (each after 500 unmeasured):`,
  );
  for (const target of [execOne, bareExecOne, bareOne]) await sequentialLatency(target, RATIO_WARMUP);
  const ratioRows: (string | number)[][] = [];
  const ratios = { exec: [] as number[], bareExec: [] as number[], execOfBareExec: [] as number[] };
  const cpuRatios = { exec: [] as number[], bareExec: [] as number[], execOfBareExec: [] as number[] };
  // Server side of each path: the relay (or the bare server) and the process of the edge it reaches.
  const relaySide = [controlPlane, fleetChildren[0]!];
  const bareSide = [bare, bareEdge];
  const measure = async (target: LoadTarget, side: readonly BenchChild[]) => {
    const cpu = await cpuOf(side);
    const latency = await sequentialLatency(target, RATIO_REQUESTS);
    return { p50: latency.p50, p99: latency.p99, cpu: ((await cpuOf(side)) - cpu) / (RATIO_REQUESTS + 500) };
  };
  for (let r = 0; r < RATIO_ROUNDS; r += 1) {
    const exec = await measure(execOne, relaySide);
    const bareExec = await measure(bareExecOne, relaySide);
    const floor = await measure(bareOne, bareSide);
    ratios.exec.push(exec.p50 / floor.p50);
    ratios.bareExec.push(bareExec.p50 / floor.p50);
    ratios.execOfBareExec.push(exec.p50 / bareExec.p50);
    cpuRatios.exec.push(exec.cpu / floor.cpu);
    cpuRatios.bareExec.push(bareExec.cpu / floor.cpu);
    cpuRatios.execOfBareExec.push(exec.cpu / bareExec.cpu);
    ratioRows.push([String(r + 1), exec.p50, exec.p99, exec.cpu, bareExec.p50, bareExec.p99, bareExec.cpu, floor.p50, floor.p99, floor.cpu, exec.p50 / floor.p50, exec.p50 / bareExec.p50, exec.cpu / bareExec.cpu]);
  }
  printTable(
    ['round', 'exec p50 ms', 'exec p99 ms', 'exec CPU µs', 'bare exec p50 ms', 'bare exec p99 ms', 'bare exec CPU µs', 'bare p50 ms', 'bare p99 ms', 'bare CPU µs', 'exec ÷ bare p50', 'exec ÷ bare exec p50', 'exec ÷ bare exec CPU'],
    ratioRows,
    3,
  );
  console.log(
    `exec ÷ bare at p50, per round, median (min–max): ${spread(ratios.exec)} (the opt-in bare exec: ${spread(ratios.bareExec)}); ` +
      `server CPU per request (server and edge processes, warm-up included): ${spread(cpuRatios.exec)} (bare exec: ${spread(cpuRatios.bareExec)})`,
  );
  console.log(`The default path's cost over the opt-in bare exec, per round, median (min–max): p50 ${spread(ratios.execOfBareExec)}, server CPU ${spread(cpuRatios.execOfBareExec)}`);
  summary.push(['exec p50 ÷ bare HTTP → ws → HTTP p50 (per round)', spread(ratios.exec), `≤ ${GOALS.execOfBare}`, verdict(median(ratios.exec) <= GOALS.execOfBare)]);
  summary.push(['  server CPU per request, exec ÷ bare (per round)', spread(cpuRatios.exec), '—', '—']);
  summary.push(['  the same with RELAY_BARE_EXEC=on: p50; server CPU', `${spread(ratios.bareExec)}; ${spread(cpuRatios.bareExec)}`, '—', '—']);
  summary.push(['  exec ÷ the opt-in bare exec: p50; server CPU', `${spread(ratios.execOfBareExec)}; ${spread(cpuRatios.execOfBareExec)}`, '—', '—']);
  return { small, beforeFleet, fleetChildren };
}

/** Part 3: exec to random edges of the small fleet, the fleet grown to the relay's open-file limit, its memory, and exec again. */
async function fleetAtScale(
  controlPlane: BenchChild,
  cp: ControlPlaneInfo,
  smallIds: readonly string[],
  beforeFleet: Memory,
  fork: Fork,
  fleetChildren: BenchChild[],
  summary: (string | number)[][],
): Promise<void> {
  console.log(`\nExec to random edges, ${FLEET_ROUNDS} × ${FLEET_EXECS} sequential, with ${SMALL_FLEET} fake edges connected:`);
  await controlPlane.call<Stalls>('stalls');
  const smallLatency = await execToRandomEdges(cp, smallIds, FLEET_ROUNDS, FLEET_EXECS);
  const smallStalls = await controlPlane.call<Stalls>('stalls');
  printTable(LATENCY_HEADERS, [row(`exec, ${SMALL_FLEET} edges connected`, smallLatency)], 2);

  const capacity = Math.min(FLEET_GOAL, cp.openFileLimit - RESERVED_DESCRIPTORS);
  console.log(
    `\nThe relay process may open ${cp.openFileLimit} files (ulimit -n; not raisable here), one per edge socket: the fleet grows to ${capacity} edges` +
      `${capacity < FLEET_GOAL ? ` (the goal's ${FLEET_GOAL} cannot connect to one process on this machine)` : ''}, ${EDGES_PER_CHILD} per fake-edge child, each from its own 127.0.0.x.`,
  );
  const grown = process.hrtime.bigint();
  const ids = [...smallIds];
  const parts: Promise<FakeEdgesInfo>[] = [];
  for (let c = 0, left = capacity - SMALL_FLEET; left > 0; c += 1, left -= EDGES_PER_CHILD) {
    const child = await fork('fake-edges.js');
    fleetChildren.push(child);
    parts.push(child.call<FakeEdgesInfo>('start', {
      relayUrl: cp.url, connectionId: cp.connectionId, connectionSecret: cp.connectionSecret, count: Math.min(EDGES_PER_CHILD, left), prefix: `fleet-${c}-`, localAddress: `127.0.0.${3 + c}`,
    }));
  }
  for (const part of await Promise.all(parts)) ids.push(...part.instanceIds);
  const connectSeconds = msSince(grown) / 1000;
  const afterFleet = await controlPlane.call<Memory>('memory');
  const per = (field: 'rss' | 'heapUsed' | 'external') => (afterFleet[field] - beforeFleet[field]) / ids.length;
  console.log(`${ids.length} fake edges connected and registered (${ids.length - SMALL_FLEET} in ${fmt(connectSeconds, 1)} s); relay process memory after a full GC:`);
  printTable(
    ['memory', 'before MB', `with ${ids.length} edges MB`, 'per edge KB'],
    (['rss', 'heapUsed', 'external'] as const).map((f) => [f, beforeFleet[f] / 2 ** 20, afterFleet[f] / 2 ** 20, per(f) / 1024]),
  );
  summary.push([`relay RSS per connected edge, ${ids.length} edges on one node`, `${fmt(per('rss') / 1024, 1)} KB`, `< ${GOALS.bytesPerEdge / 1024} KB`, verdict(per('rss') < GOALS.bytesPerEdge)]);

  console.log(`\nExec to random edges, ${FLEET_ROUNDS} × ${FLEET_EXECS} sequential, with ${ids.length} fake edges connected:`);
  await controlPlane.call<Stalls>('stalls');
  const largeLatency = await execToRandomEdges(cp, ids, FLEET_ROUNDS, FLEET_EXECS);
  const largeStalls = await controlPlane.call<Stalls>('stalls');
  printTable(LATENCY_HEADERS, [row(`exec, ${SMALL_FLEET} edges connected`, smallLatency), row(`exec, ${ids.length} edges connected`, largeLatency)], 2);
  console.log("The relay's event loop and GC while those execs ran (loop delay: how late a 1 ms timer fired):");
  printTable(
    ['edges connected', 'loop delay p99 ms', 'loop delay max ms', 'GC pauses', 'GC total ms', 'longest GC ms'],
    [
      [String(SMALL_FLEET), smallStalls.loopDelayP99, smallStalls.loopDelayMax, String(smallStalls.gcCount), smallStalls.gcTotalMs, smallStalls.gcMaxMs],
      [String(ids.length), largeStalls.loopDelayP99, largeStalls.loopDelayMax, String(largeStalls.gcCount), largeStalls.gcTotalMs, largeStalls.gcMaxMs],
    ],
    2,
  );
  const p99Ratio = largeLatency.p99 / smallLatency.p99;
  summary.push([
    `exec p99 with ${ids.length} edges ÷ with ${SMALL_FLEET} (${fmt(largeLatency.p99, 2)} vs ${fmt(smallLatency.p99, 2)} ms)`,
    fmt(p99Ratio, 2),
    `≤ ${GOALS.p99Unchanged} (unchanged)`,
    verdict(p99Ratio <= GOALS.p99Unchanged),
  ]);
}

async function main(): Promise<void> {
  console.log(`Relay scale bench: ${machineLine()}\n`);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const children: BenchChild[] = [];
  const summary: (string | number)[][] = [];
  const fork = async (module: string, execArgv: readonly string[] = []) => {
    const child = await forkBenchChild(join(__dirname, 'lib', module), execArgv);
    children.push(child);
    return child;
  };
  const stop = async (child: BenchChild) => {
    await child.stop();
    children.splice(children.indexOf(child), 1);
  };
  try {
    const controlPlane = await fork('control-plane-server.js', ['--expose-gc']);
    const cp = await controlPlane.call<ControlPlaneInfo>('start', { maxSocketsPerConnection: FLEET_GOAL, heartbeatMs: options.heartbeatMs });
    console.log(`Relay heartbeat (ping period): ${options.heartbeatMs} ms`);
    const idle = await controlPlane.call<Memory>('memory');
    console.log(`Idle relay (control plane after its first-start seed, no edge), after a full GC: RSS ${fmt(idle.rss / 2 ** 20)} MB, heap used ${fmt(idle.heapUsed / 2 ** 20)} MB, external ${fmt(idle.external / 2 ** 20)} MB`);

    // 1. Real edge runtimes.
    if (options.only === undefined || options.only === 'real-edges') await realEdgeBroadcasts(controlPlane, cp, config.policiesDir, fork, stop, summary);

    if (options.only !== 'real-edges') {
      // 2 and 3. Exec against the bare HTTP → ws → HTTP path, then the fleet.
      const { small, beforeFleet, fleetChildren } = await execAgainstBare(controlPlane, cp, fork, summary);
      if (options.only !== 'exec') await fleetAtScale(controlPlane, cp, small.instanceIds, beforeFleet, fork, fleetChildren, summary);
    }
  } finally {
    for (const child of children.reverse()) await child.stop();
    closeCalls();
  }
  console.log('\nGoals:');
  printTable(['measure', 'figure', 'goal', 'verdict'], summary);
}

const options = scriptCommand(
  'npm run bench:relay-scale --',
  'the relay at scale on loopback: one broadcast to 100 real edge runtimes doing a real discovery, exec against a bare HTTP → ws → HTTP path, and as many fake edges on one relay process as its open-file limit allows (at most 50,000): RSS per edge and exec p99',
  'npm run bench:relay-scale',
)
  .option('--heartbeat-ms <ms>', "the relay's ping period (RELAY_HEARTBEAT_MS): shorter puts more heartbeat periods into the fleet's exec measurement", heartbeatMs, 30_000)
  .option(
    '--only <part>',
    `run one part only: real-edges (the broadcast to ${REAL_EDGES} real edge runtimes, about a minute), exec (exec against the bare path, after its ${SMALL_FLEET} fake edges connect) or fleet (exec, then the fleet at the open-file limit)`,
    onlyPart,
  )
  .parse()
  .opts<{ heartbeatMs: number; only?: Part }>();

function onlyPart(value: string): Part {
  if (!(PARTS as readonly string[]).includes(value)) throw new InvalidArgumentError(`one of: ${PARTS.join(', ')}`);
  return value as Part;
}

function heartbeatMs(value: string): number {
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100 || ms > 600_000) throw new InvalidArgumentError('milliseconds, 100–600000');
  return ms;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
