// The sidecar against a bare node:http server and against a real peer PDP, on loopback:
// npm run bench:peer
//
// Processes: the control plane and a sidecar edge (lib/bench-stack; the edge child also serves
// a bare node:http JSON endpoint that parses the same body and answers), Cerbos from its npm
// package with the equivalent RBAC policy (scripts/bench/peer/, lib/cerbos-server), and this
// process, which runs autocannon. Every ratio is taken round by round against the baseline's
// run of the same round (lib/compare-rounds); the verdict reads server CPU per request, from
// the two servers' own /proc clocks (only the processes this bench started). A CPU profile of
// the sidecar edge child: BENCH_CPU_PROF=<dir> npm run bench:peer -- --only sidecar
import { loadConfig } from '../../src/config';
import { loadDirectorySeed } from '../../src/directory';
import { join } from 'node:path';
import { readPolicyFolder } from '../../src/policy';
import { startBenchStack, type BenchStack } from './lib/bench-stack';
import { startCerbos, type CerbosServer } from './lib/cerbos-server';
import type { BenchChild } from './lib/child-harness';
import { compareRounds, formatSpread, goalRow, spreadOf, type RoundSamples } from './lib/compare-rounds';
import { closeCalls, execCommand, isRequestBody, pushPolicy } from './lib/control-plane-calls';
import { runLoad, type LoadTarget } from './lib/load';
import { checkEquivalence, peerBodies, type PeerUser, type PeerVariation } from './lib/peer-bodies';
import { treeCpuMs } from './lib/read-process-cpu';
import type { EdgeInfo } from './lib/edge-server';
import { machineLine, printTable } from './lib/table';
import { InvalidArgumentError } from 'commander';
import { scriptCommand, wholeNumber } from '../lib/script-command';

/** Per-round ratio goals (server CPU per request, median of rounds). */
const GOALS = { ofBareNode: 0.6, ofCerbos: 1.0 };
const BATCH = 25;
const JSON_HEADERS = { 'content-type': 'application/json' };

interface Options {
  readonly only?: 'sidecar' | 'peer';
  readonly rounds: number;
  readonly seconds: number;
}

/** A target and the pid whose CPU clock is its server's. */
interface Measured {
  readonly target: LoadTarget;
  readonly pid: number;
}

/**
 * Runs `pairs` (baseline, target) alternated for `rounds` rounds at `connections`, each run
 * `seconds` long, reading each server's CPU around its run; returns the samples per label.
 */
async function measureRounds(measured: readonly Measured[], connections: number, options: Options): Promise<Map<string, RoundSamples>> {
  const samples = new Map(measured.map((m) => [m.target.label, { rps: [] as number[], cpuUs: [] as number[] }]));
  // A short warm-up each: JIT, connection pools and (for hits) the decision cache.
  for (const m of measured) await runLoad(m.target, { connections, durationSeconds: 1 });
  for (let round = 0; round < options.rounds; round += 1) {
    for (const m of measured.map((_m, i) => measured[(i + round) % measured.length]!)) {
      const before = treeCpuMs([m.pid]);
      const result = await runLoad(m.target, { connections, durationSeconds: options.seconds });
      const cpuMs = treeCpuMs([m.pid]) - before;
      if (result.failures > 0 || result.ok === 0) throw new Error(`${m.target.label}: ${result.failures} failed requests, ${result.ok} answered`);
      const answered = result.rps * result.seconds;
      const own = samples.get(m.target.label)!;
      own.rps.push(result.rps);
      own.cpuUs.push((cpuMs * 1000) / Math.max(1, answered));
      console.log(`| ${round + 1} | ${m.target.label} | ${result.rps.toFixed(0)} | ${result.p99} | ${((cpuMs * 1000) / Math.max(1, answered)).toFixed(1)} |`);
    }
  }
  return samples;
}

const post = (label: string, url: string, body: string, uniqueIds = false): LoadTarget => ({ label, url, method: 'POST', headers: JSON_HEADERS, body, uniqueIds });

/** Item 2: the sidecar's two decision routes against a bare node:http server that parses the same body and answers. */
async function sidecarPart(edge: EdgeInfo, edgePid: number, user: PeerUser, options: Options, goals: string[][]): Promise<void> {
  const is = isRequestBody(user.id, 'rbac.DELETE', 'mega-seed');
  const evaluation = JSON.stringify({ subject: { type: 'user', id: user.id }, action: { name: 'DELETE' }, resource: { type: 'Resource', id: 'mega-seed' } });
  for (const [route, body] of [['/api/v2/authz/is', is], ['/access/v1/evaluation', evaluation]] as const) {
    const bare = post(`bare node:http ${route}`, `${edge.bareNodeUrl}${route}`, body);
    const sidecar = post(`sidecar ${route}`, `${edge.edgeUrl}${route}`, body);
    // On the first route only: what a fixed amount of handler work costs, measured the same way.
    const calibration = route === '/api/v2/authz/is' ? post(`bare node:http + ${edge.calibrationWorkUs} µs of busy work ${route}`, `${edge.calibrationUrl}${route}`, body) : undefined;
    console.log(`\nSidecar ${route} against bare node:http (same body, 32 connections, ${options.rounds} rounds of ${options.seconds} s alternated):`);
    console.log('| round | target | req/s | p99 ms | server CPU µs per request |\n|---:|---|---:|---:|---:|');
    const targets = [bare, sidecar, ...(calibration ? [calibration] : [])].map((target) => ({ target, pid: edgePid }));
    const samples = await measureRounds(targets, 32, options);
    goals.push(goalRow(`sidecar ${route} ÷ bare node:http`, compareRounds(samples.get(bare.label)!, samples.get(sidecar.label)!), GOALS.ofBareNode));
    if (calibration) {
      const { cpu } = compareRounds(samples.get(bare.label)!, samples.get(calibration.label)!);
      const added = samples.get(calibration.label)!.cpuUs.map((us, i) => us - samples.get(bare.label)!.cpuUs[i]!);
      console.log(
        `\nCalibration: ${edge.calibrationWorkUs} µs of busy work in the bare handler measures CPU ${formatSpread(cpu)} of bare, ` +
          `${formatSpread(spreadOf(added), 1)} µs more CPU per request: ` +
          'the budget a handler has here before the ratio falls.',
      );
    }
  }
}

/**
 * The shipped rbac image with a context every action declares and no policy reads: the nonce
 * and question the `new-context` bodies carry then reach Cedar, so every decision is a new
 * question for Outpost's cache, which keys on the context as Cedar gets it. The decisions
 * cannot change (the bench checks it again before using it).
 */
function rbacWithDeclaredContext(policiesDir: string): Record<string, string> {
  const files = readPolicyFolder(join(policiesDir, 'rbac')).files as Record<string, string>;
  const schema = files['schema.cedarschema'] ?? '';
  const declared = schema.replace('    resource: Resource,\n  };', '    resource: Resource,\n    context: { question?: String, subject?: { nonce?: String } },\n  };');
  if (declared === schema) throw new Error('the rbac schema no longer has the shape this bench extends');
  return { ...files, 'schema.cedarschema': declared };
}

/** Item 3: Outpost ÷ Cerbos on the same AuthZEN requests, row by row. */
async function peerPart(stack: BenchStack, cerbos: CerbosServer, users: readonly PeerUser[], policiesDir: string, options: Options, goals: string[][]): Promise<void> {
  const { edgeUrl } = stack.edge;
  const edgePid = stack.edgeChild.pid;
  console.log('\nEquivalence first: every user, action and resource below, single and batched, asked of both:');
  const checked = await checkEquivalence(edgeUrl, cerbos.url, users);
  console.log(`${checked} decisions identical.`);
  const rick = users.find((u) => u.email.startsWith('rick@'))!;
  const rows = [
    { row: 'single decision, c=1', path: '/access/v1/evaluation', connections: 1, batch: 1 },
    { row: 'single decision, c=32', path: '/access/v1/evaluation', connections: 32, batch: 1 },
    { row: `batch of ${BATCH}, c=32`, path: '/access/v1/evaluations', connections: 32, batch: BATCH },
  ];
  const variations: Array<[PeerVariation, string, 'declared'?]> = [
    ['new-ids', 'new resource ids each request'],
    ['new-context', 'new resource ids and a context no action declares each request'],
    ['new-context', 'new resource ids and a declared context each request (Cedar on every decision)', 'declared'],
    ['same', 'hits (the same request)'],
  ];
  for (const [variation, what, declared] of variations) {
    if (declared) {
      const digest = await pushPolicy(stack.cp, 'rbac', rbacWithDeclaredContext(policiesDir));
      await execCommand(stack.cp, stack.edge.instanceId, 'discovery');
      console.log(`\nThe edge now runs rbac ${digest.slice(0, 19)}…, whose actions declare context { question?, subject?: { nonce? } } (no policy reads it). Equivalence again:`);
      console.log(`${await checkEquivalence(edgeUrl, cerbos.url, users)} decisions identical.`);
    }
    for (const r of rows) {
      const name = `${r.row}, ${what}`;
      const body = peerBodies(rick, r.batch, variation);
      const unique = variation !== 'same';
      const cerbosTarget = post(`Cerbos: ${name}`, `${cerbos.url}${r.path}`, body, unique);
      const outpostTarget = post(`Outpost: ${name}`, `${edgeUrl}${r.path}`, body, unique);
      console.log(`\n${name} (${options.rounds} rounds of ${options.seconds} s alternated):`);
      console.log('| round | target | req/s | p99 ms | server CPU µs per request |\n|---:|---|---:|---:|---:|');
      const samples = await measureRounds([{ target: cerbosTarget, pid: cerbos.pid }, { target: outpostTarget, pid: edgePid }], r.connections, options);
      goals.push(goalRow(`Outpost ÷ Cerbos, ${name}`, compareRounds(samples.get(cerbosTarget.label)!, samples.get(outpostTarget.label)!), GOALS.ofCerbos));
    }
  }
}

async function main(options: Options): Promise<void> {
  console.log(`Peer bench: ${machineLine()}\n`);
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const users: PeerUser[] = loadDirectorySeed(config.directorySeedFile).directory.users.map((u) => ({ id: u.id, email: u.email, roles: [...u.roles] }));
  const children: BenchChild[] = [];
  let cerbos: CerbosServer | undefined;
  const goals: string[][] = [];
  try {
    const stack = await startBenchStack(children);
    const { edgeChild, edge } = stack;
    if (options.only !== 'peer') await sidecarPart(edge, edgeChild.pid, users.find((u) => u.email.startsWith('morty@'))!, options, goals);
    if (options.only !== 'sidecar') {
      cerbos = await startCerbos();
      console.log(`\nCerbos (${cerbos.url}) answered ${cerbos.startedInMs.toFixed(0)} ms after it was spawned.`);
      await peerPart(stack, cerbos, users, config.policiesDir, options, goals);
    }
  } finally {
    await cerbos?.stop();
    for (const child of children.reverse()) await child.stop();
    closeCalls();
  }
  console.log('\nGoals (each ratio per round against the baseline\'s run in the same round; above 1: Outpost faster):');
  printTable(['measure', 'figure, median (min–max) of rounds', 'goal', 'verdict'], goals);
}

const program = scriptCommand(
  'npm run bench:peer --',
  'the sidecar against a bare node:http server (CPU per decision, AuthZEN and is routes) and against Cerbos (its npm package, the same RBAC policy): single decisions at c=1 and c=32 and batches of 25, with new resource ids, with new resource ids and context (Cedar on every decision) and repeated (hits), per round',
  'npm run bench:peer -- --only peer --rounds 3',
)
  .option('--only <part>', 'run one part: sidecar (against bare node:http) or peer (against Cerbos)', (v: string) => {
    if (v !== 'sidecar' && v !== 'peer') throw new InvalidArgumentError('sidecar or peer');
    return v;
  })
  .option('--rounds <n>', 'alternated rounds per comparison (1–9)', wholeNumber(1, 9), 3)
  .option('--seconds <n>', 'seconds per run (1–20)', wholeNumber(1, 20), 3);

program.parse();

main(program.opts<Options>()).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
