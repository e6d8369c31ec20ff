// The demo IdP's sign-ins:  npm run bench:idp
// The IdP runs in a child (lib/idp-server: 127.0.0.1, random port, temporary data directory,
// login throttling out of the way), so its CPU clock holds its own work only; autocannon and
// the code-flow driver run here.
// 1. Token issuance at the JSON endpoint (POST /api/v1/idp/token) at 1, 8 and 32 connections.
// 2. The scrypt limit: in interleaved rounds, the child's CPU per token issued at the JSON
//    endpoint under load (as many connections as the IdP checks passwords at once, a fixed
//    number of requests so none is in flight when the clock is read), against the CPU per
//    token of the bare work in the same child (one scrypt verification of the user's stored
//    hash + one token pair from the endpoint's issuer, as many at once). bare ÷ endpoint per
//    round is the endpoint's efficiency; the goal (≥ 0.90) is judged on its median.
//    Then one verification and one signing timed apart, for the split.
// 3. The code flow: sequential sign-ins with code + PKCE, driven hop by hop as a browser
//    would (lib/code-flow), timed per flow and per hop, with the child's CPU per flow.
//    With BENCH_IDP_BEFORE=<a built checkout of an older commit> the same flows also run
//    against that checkout's IdP, alternated with this one round by round:
//      git worktree add /tmp/outpost-before 7e2dc1a && ln -s "$PWD/node_modules" /tmp/outpost-before/
//      (cd /tmp/outpost-before && npx tsc -b tsconfig.build.json)
//      BENCH_IDP_BEFORE=/tmp/outpost-before npm run bench:idp
//    BENCH_IDP_BEFORE_FLOW=oidc-provider if that checkout already has the provider's flow.
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { forkBenchChild, type BenchChild } from './lib/child-harness';
import { runCodeFlow, type CodeFlowClient, type CodeFlowTiming, type IdpGeneration } from './lib/code-flow';
import { compareRounds, formatSpread, goalRow, looksLikeNoise, type RoundSamples } from './lib/compare-rounds';
import type { BareWork, IdpInfo } from './lib/idp-server';
import { runLoad, type LoadTarget } from './lib/load';
import { median, summarize } from './lib/stats';
import { fmt, machineLine, printTable } from './lib/table';
import { scriptCommand } from '../lib/script-command';

const SWEEP_CONNECTIONS = [1, 8, 32];
const SWEEP_SECONDS = 5;
const ROUNDS = 5;
/** Tokens per run of the scrypt-limit rounds: ~4 s each at the ~17 tokens/s two cores give. */
const TOKENS_PER_RUN = 64;
const WARMUP_TOKENS = 8;
const STEP_ITERATIONS = 20;
/** The code flow: sequential flows per IdP per round (ROUNDS rounds), after a few unmeasured. */
const FLOWS_PER_ROUND = 10;
const WARMUP_FLOWS = 3;
const GOAL_EFFICIENCY = 0.9;

/** `abc1234`, plus a note when that checkout's src/ differs from its commit. */
function commitOf(dir: string): string {
  try {
    const id = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim();
    return dirty ? `${id} + uncommitted src changes` : id;
  } catch {
    return dir;
  }
}

/** Server CPU µs of `run`, read from the child's own clock right before and after. */
async function childCpuUs<T>(child: BenchChild, run: () => Promise<T>): Promise<{ value: T; cpuUs: number }> {
  const before = await child.call<number>('cpu');
  const value = await run();
  const after = await child.call<number>('cpu');
  return { value, cpuUs: after - before };
}

async function tokenSweep(info: IdpInfo): Promise<void> {
  const target = jsonTokenTarget(info);
  const rows: (string | number)[][] = [];
  for (const connections of SWEEP_CONNECTIONS) {
    const r = await runLoad(target, { connections, durationSeconds: SWEEP_SECONDS, timeoutSeconds: 60 });
    rows.push([String(connections), r.okRps, r.p50, r.p99, String(r.shed), String(r.failures)]);
  }
  // Past 4 checks running and 16 waiting the IdP sheds sign-ins with 503 at once: they count
  // as shed, not as failures, and the latencies mix both kinds of answer.
  printTable(['concurrency', 'tokens/s', 'p50 ms', 'p99 ms', 'shed (503)', 'failures'], rows);
}

function jsonTokenTarget(info: IdpInfo): LoadTarget {
  return {
    label: 'endpoint',
    url: `${info.url}${info.tokenPath}`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: info.username, password: info.password }),
  };
}

/** One run of the scrypt-limit rounds: tokens issued, tokens/s, CPU µs per token. */
interface TokenRun {
  readonly tokens: number;
  readonly tokensPerSecond: number;
  readonly cpuUsPerToken: number;
  readonly spoiled: number;
}

/** The endpoint under load: `atOnce` connections, `amount` requests in all (none in flight when the clock is read). */
async function endpointRun(child: BenchChild, target: LoadTarget, atOnce: number, amount: number): Promise<TokenRun> {
  const { value: r, cpuUs } = await childCpuUs(child, () => runLoad(target, { connections: atOnce, durationSeconds: 0, amount, timeoutSeconds: 60 }));
  return { tokens: r.ok, tokensPerSecond: r.okRps, cpuUsPerToken: cpuUs / Math.max(1, r.ok), spoiled: r.shed + r.failures };
}

async function bareRun(child: BenchChild, atOnce: number, tokens: number): Promise<TokenRun> {
  const w = await child.call<BareWork>('bare', { tokens, concurrency: atOnce });
  return { tokens: w.tokens, tokensPerSecond: w.tokens / w.seconds, cpuUsPerToken: w.cpuUs / w.tokens, spoiled: 0 };
}

async function scryptLimit(child: BenchChild, info: IdpInfo): Promise<string[]> {
  // As many at once as the IdP checks passwords at once: its scrypt runs are never queued.
  const atOnce = info.hashingInFlight;
  const target = jsonTokenTarget(info);
  await endpointRun(child, target, atOnce, WARMUP_TOKENS);
  await bareRun(child, atOnce, WARMUP_TOKENS);
  const runs = { endpoint: [] as TokenRun[], bare: [] as TokenRun[] };
  const labels: Record<keyof typeof runs, string> = { endpoint: `POST ${info.tokenPath}`, bare: 'bare work (scrypt verify + token pair)' };
  console.log(
    `The scrypt limit: ${ROUNDS} rounds, each one run of ${TOKENS_PER_RUN} tokens at the endpoint (${atOnce} connections) and one of the bare work (${atOnce} at once), alternated; the IdP child's CPU clock:`,
  );
  console.log('| round | run | tokens | tokens/s | CPU ms per token | shed + failures |');
  console.log('|---:|---|---:|---:|---:|---:|');
  for (let round = 1; round <= ROUNDS; round += 1) {
    // Alternated within the round, and the order flipped every round.
    const order: (keyof typeof runs)[] = round % 2 === 1 ? ['endpoint', 'bare'] : ['bare', 'endpoint'];
    for (const which of order) {
      const run = which === 'endpoint' ? await endpointRun(child, target, atOnce, TOKENS_PER_RUN) : await bareRun(child, atOnce, TOKENS_PER_RUN);
      runs[which].push(run);
      console.log(`| ${round} | ${labels[which]} | ${run.tokens} | ${fmt(run.tokensPerSecond)} | ${fmt(run.cpuUsPerToken / 1000, 2)} | ${run.spoiled} |`);
    }
  }
  const samples = (list: TokenRun[]): RoundSamples => ({ rps: list.map((r) => r.tokensPerSecond), cpuUs: list.map((r) => r.cpuUsPerToken) });
  // Baseline: the bare work. CPU ratio = bare ÷ endpoint (the endpoint's efficiency); req/s = endpoint ÷ bare tokens/s.
  const comparison = compareRounds(samples(runs.bare), samples(runs.endpoint));
  const adds = runs.endpoint.map((r, i) => (r.cpuUsPerToken - (runs.bare[i] as TokenRun).cpuUsPerToken) / 1000);
  console.log('');
  printTable(
    ['', 'CPU ms per token (median of rounds)', 'tokens/s (median of rounds)'],
    [
      [labels.endpoint, fmt(median(runs.endpoint.map((r) => r.cpuUsPerToken)) / 1000, 2), fmt(median(runs.endpoint.map((r) => r.tokensPerSecond)))],
      [labels.bare, fmt(median(runs.bare.map((r) => r.cpuUsPerToken)) / 1000, 2), fmt(median(runs.bare.map((r) => r.tokensPerSecond)))],
      // The endpoint does the bare work and more: a negative figure is the runs' noise, not a saving.
      ['the endpoint adds (per round, median (min–max))', `${fmt(median(adds), 2)} (${fmt(Math.min(...adds), 2)}–${fmt(Math.max(...adds), 2)})${median(adds) < 0 || looksLikeNoise(comparison.cpu) ? ' noise?' : ''}`, '—'],
    ],
  );
  console.log(`\nEfficiency per round, bare ÷ endpoint: CPU per token ${formatSpread(comparison.cpu)}, tokens/s (endpoint ÷ bare) ${formatSpread(comparison.rps)}`);

  const { verifyMs, signMs } = await child.call<{ verifyMs: number; signMs: number }>('steps', { iterations: STEP_ITERATIONS });
  const total = verifyMs + signMs;
  console.log(`\nOne token's work, mean of ${STEP_ITERATIONS} sequential runs (wall time):`);
  printTable(
    ['step', 'ms', 'share'],
    [
      ['scrypt password verification (N=2^15, r=8, p=1)', fmt(verifyMs, 2), `${fmt((100 * verifyMs) / total)} %`],
      ['token pair signing (2 × RS256)', fmt(signMs, 2), `${fmt((100 * signMs) / total)} %`],
    ],
  );
  return goalRow(`JSON token endpoint at the scrypt limit: bare ÷ endpoint per token, ${atOnce} at once`, comparison, GOAL_EFFICIENCY);
}

/** One IdP of the code-flow comparison. */
interface FlowSubject {
  readonly label: string;
  readonly child: BenchChild;
  readonly client: CodeFlowClient;
  readonly generation: IdpGeneration;
  readonly flows: CodeFlowTiming[];
  /** Per round: flows/s and server CPU µs per flow. */
  readonly rounds: { rps: number[]; cpuUs: number[] };
}

/** Starts an IdP child (from `distRoot`, or this checkout) and registers it in `children` for the caller to stop. */
async function startSubject(children: BenchChild[], label: string, generation: IdpGeneration, distRoot?: string): Promise<{ subject: FlowSubject; info: IdpInfo }> {
  const child = await forkBenchChild(join(__dirname, 'lib', 'idp-server.js'));
  children.push(child);
  const info = await child.call<IdpInfo>('start', distRoot === undefined ? {} : { distRoot });
  const client: CodeFlowClient = { base: info.url, clientId: info.clientId, redirectUri: info.redirectUri, username: info.username, password: info.password };
  return { subject: { label, child, client, generation, flows: [], rounds: { rps: [], cpuUs: [] } }, info };
}

async function codeFlows(subjects: readonly FlowSubject[]): Promise<void> {
  for (const s of subjects) for (let i = 0; i < WARMUP_FLOWS; i += 1) await runCodeFlow(s.client, s.generation);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const s of subjects.map((_s, i) => subjects[(i + round) % subjects.length] as FlowSubject)) {
      const started = process.hrtime.bigint();
      const { cpuUs } = await childCpuUs(s.child, async () => {
        for (let i = 0; i < FLOWS_PER_ROUND; i += 1) s.flows.push(await runCodeFlow(s.client, s.generation));
      });
      s.rounds.rps.push(FLOWS_PER_ROUND / (Number(process.hrtime.bigint() - started) / 1e9));
      s.rounds.cpuUs.push(cpuUs / FLOWS_PER_ROUND);
    }
  }
  const cpuMs = (s: FlowSubject) => s.rounds.cpuUs.map((us) => us / 1000);
  printTable(
    ['IdP', 'flows', 'HTTP exchanges per flow', 'p50 ms', 'p99 ms', 'mean ms', 'server CPU ms per flow, median (min–max) of rounds'],
    subjects.map((s) => {
      const t = summarize(s.flows.map((f) => f.totalMs));
      const cpu = cpuMs(s);
      return [s.label, String(t.count), String(s.flows[0]?.steps.length ?? 0), fmt(t.p50), fmt(t.p99), fmt(t.mean), `${fmt(median(cpu), 1)} (${fmt(Math.min(...cpu), 1)}–${fmt(Math.max(...cpu), 1)})`];
    }),
  );
  for (const s of subjects) {
    console.log(`\n${s.label}, each exchange (ms):`);
    const names = s.flows[0]?.steps.map((step) => step.name) ?? [];
    printTable(
      ['exchange', 'p50 ms', 'p99 ms'],
      names.map((name, i) => {
        const t = summarize(s.flows.map((f) => f.steps[i]?.ms ?? Number.NaN));
        return [name, fmt(t.p50, 2), fmt(t.p99, 2)];
      }),
    );
  }
  const [after, before] = subjects;
  if (after && before) {
    const c = compareRounds(before.rounds, after.rounds);
    console.log(`\nPer round, ${after.label} against ${before.label} (above 1: ${after.label} is faster): server CPU per flow (before ÷ after) ${formatSpread(c.cpu)}; flows/s (after ÷ before) ${formatSpread(c.rps)}`);
  }
}

async function main(): Promise<void> {
  const beforeDir = process.env.BENCH_IDP_BEFORE ? resolve(process.env.BENCH_IDP_BEFORE) : undefined;
  const beforeFlow = process.env.BENCH_IDP_BEFORE_FLOW ?? 'hand-written';
  if (beforeFlow !== 'hand-written' && beforeFlow !== 'oidc-provider') throw new Error('BENCH_IDP_BEFORE_FLOW is hand-written or oidc-provider');
  const here = commitOf('.');
  console.log(`IdP bench: the JSON token endpoint and the code flow; the IdP in a child process, built from ${here}`);
  console.log(`${machineLine()}\n`);
  const children: BenchChild[] = [];
  const goals: string[][] = [];
  try {
    const after = await startSubject(children, beforeDir ? `after (${here})` : here, 'oidc-provider');
    const { info } = after;

    console.log(`Token issuance at POST ${info.tokenPath}, ${SWEEP_SECONDS} s per level, ${info.username}:`);
    await tokenSweep(info);

    console.log('');
    goals.push(await scryptLimit(after.subject.child, info));

    const subjects: FlowSubject[] = [after.subject];
    if (beforeDir) subjects.push((await startSubject(children, `before (${commitOf(beforeDir)})`, beforeFlow, join(beforeDir, 'dist'))).subject);
    console.log(
      `\nCode flow round trip (code + PKCE, a first sign-in each: /authorize to tokens), ${ROUNDS} rounds of ${FLOWS_PER_ROUND} sequential flows per IdP after ${WARMUP_FLOWS} unmeasured${subjects.length > 1 ? ', IdPs alternated' : ''}; p99 of ${ROUNDS * FLOWS_PER_ROUND} flows is the slowest:`,
    );
    await codeFlows(subjects);
  } finally {
    for (const child of children.reverse()) await child.stop();
  }
  console.log('\nGoals:');
  printTable(['measure', 'figure', 'goal', 'verdict'], goals);
}

scriptCommand(
  'npm run bench:idp --',
  "the demo IdP's sign-ins: token issuance at 1, 8 and 32 connections, the endpoint's CPU against the bare scrypt + signing work, code + PKCE flows (alternated with an older built checkout's IdP when BENCH_IDP_BEFORE names one)",
  'BENCH_IDP_BEFORE=/tmp/outpost-before npm run bench:idp',
).parse();

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
