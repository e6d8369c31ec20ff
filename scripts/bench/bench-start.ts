// `npm start` from nothing to its banner:  npm run bench:start [-- --runs 5]
//
// Each run starts the launcher as `npm start` does after its build (dist/src/stack/main.js) on
// a fresh data folder, as a first start from a clone is (demo tenant, IdP key and directory
// seeded, every edge's first image compiled), with every component on a free loopback port.
// It prints, from the spawn, when each "starting … ready" line and the "Outpost is up" banner
// appeared, and the CPU the launcher and its components had used by the banner; then stops
// the stack with Ctrl-C (SIGINT) and waits for it. Figures: median (min–max) over the runs.
//
// `--busy N` keeps N busy-looping processes running meanwhile: the loaded machine a CI run is,
// where a start once failed (an edge's first sync timed out while its own event loop compiled
// Cedar, and waited a whole interval to try again). Then a failed start is counted, not fatal,
// and the syncs the edges had to try again (`scheduled sync failed` in their logs) are counted too.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot, loadConfig } from '../../src/config';
import { stackComponents } from '../../src/stack/components';
import { freePort } from '../lib/free-port';
import { scriptCommand, wholeNumber } from '../lib/script-command';
import { treeCpuMs } from './lib/read-process-cpu';
import { formatSpread, spreadOf } from './lib/compare-rounds';
import { loadAverage, machineLine, printTable } from './lib/table';

/** A start that has not printed its banner by then has failed. */
const START_LIMIT_MS = 120_000;
const BANNER = 'Outpost is up';

interface StartRun {
  /** ms from the spawn to each component's "starting <label> … ready" line, in list order. */
  readonly ready: number[];
  readonly bannerMs: number;
  /** CPU ms of the launcher and every process under it, read at the banner. */
  readonly cpuMs: number;
}

/** How often the components' logs in `dataDir` say a timer-driven sync failed. */
function countFailedSyncs(dataDir: string): number {
  const logs = join(dataDir, 'logs');
  if (!existsSync(logs)) return 0;
  return readdirSync(logs).reduce((n, file) => n + readFileSync(join(logs, file), 'utf8').split('"msg":"scheduled sync failed"').length - 1, 0);
}

/** `count` processes that spin until killed (at most `limitMs`): load, as a busy CI machine has. */
function busyLoops(count: number, limitMs: number): ChildProcess[] {
  const spin = `const end = Date.now() + ${limitMs}; while (Date.now() < end);`;
  return Array.from({ length: count }, () => spawn(process.execPath, ['-e', spin], { stdio: 'ignore' }));
}

/**
 * One start on a fresh data folder and free ports, stopped with SIGINT once its banner is out.
 * The syncs its edges logged as failed, failed start or not, are added to `tally`.
 */
async function startOnce(labels: readonly string[], portVars: readonly string[], tally: { failedSyncs: number }): Promise<StartRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  for (const name of portVars) env[name] = String(await freePort());
  const started = process.hrtime.bigint();
  const since = () => Number(process.hrtime.bigint() - started) / 1e6;
  const child = spawn(process.execPath, [join(findProjectRoot(), 'dist', 'src', 'stack', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const ready: number[] = [];
    let output = '';
    const run = await new Promise<StartRun>((resolve, reject) => {
      const limit = setTimeout(() => reject(new Error(`no banner within ${START_LIMIT_MS / 1000} s:\n${output}`)), START_LIMIT_MS);
      const onText = (text: string) => {
        output += text;
        while (ready.length < labels.length && output.includes(`starting ${labels[ready.length]} … ready`)) ready.push(since());
        if (output.includes(BANNER)) {
          clearTimeout(limit);
          resolve({ ready, bannerMs: since(), cpuMs: treeCpuMs([child.pid!]) });
        }
      };
      child.stdout.setEncoding('utf8').on('data', onText);
      child.stderr.setEncoding('utf8').on('data', (text: string) => (output += text));
      void exited.then((code) => reject(new Error(`the launcher exited (${String(code)}) before its banner:\n${output}`)));
    });
    return run;
  } finally {
    child.kill('SIGINT');
    await exited;
    tally.failedSyncs += countFailedSyncs(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(options: { runs: number; busy: number }): Promise<void> {
  console.log(`Start bench: ${machineLine()}${options.busy > 0 ? `, with ${options.busy} busy loops` : ''}\n`);
  const components = stackComponents(loadConfig({}));
  const labels = components.map((c) => c.label);
  const runs: (StartRun & { n: number })[] = [];
  const failures: string[] = [];
  const tally = { failedSyncs: 0 };
  const loops = busyLoops(options.busy, options.runs * START_LIMIT_MS);
  try {
    for (let i = 0; i < options.runs; i += 1) {
      try {
        runs.push({ n: i + 1, ...(await startOnce(labels, components.map((c) => c.portVar), tally)) });
      } catch (err) {
        if (options.busy === 0) throw err;
        failures.push(`run ${i + 1}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } finally {
    for (const loop of loops) loop.kill();
  }
  for (const failure of failures) console.log(`${failure}\n`);
  console.log(`npm start on a fresh data folder, ${options.runs} runs (s from the spawn; CPU of every process of the stack by the banner):`);
  printTable(
    ['run', ...labels.map((l) => `${l} ready`), 'banner', 'CPU s'],
    runs.map((r) => [String(r.n), ...r.ready.map((ms) => ms / 1000), r.bannerMs / 1000, r.cpuMs / 1000]),
    2,
  );
  const seconds = (ms: readonly number[]) => formatSpread(spreadOf(ms.map((v) => v / 1000)));
  if (runs.length > 0) console.log(`\nTo the banner: ${seconds(runs.map((r) => r.bannerMs))} s; CPU by then: ${seconds(runs.map((r) => r.cpuMs))} s (median (min–max)).`);
  console.log(`Failed starts: ${failures.length} of ${options.runs}; timer-driven syncs that failed and were tried again: ${tally.failedSyncs}.`);
  console.log(`Load average at the end: ${loadAverage()}`);
  if (failures.length > 0) process.exitCode = 1;
}

const program = scriptCommand(
  'npm run bench:start --',
  'time `npm start` on a fresh data folder, component by component, to its banner, with the CPU it used; then stop it with Ctrl-C (each run on free loopback ports)',
  'npm run bench:start -- --runs 3\n  npm run bench:start -- --runs 8 --busy 6',
);
program.option('--runs <n>', 'starts to time, one after the other (1–50)', wholeNumber(1, 50), 5);
program.option('--busy <n>', 'busy-looping processes to run meanwhile, to load the machine (0–16); a failed start is then counted, not fatal', wholeNumber(0, 16), 0);
program.action((options: { runs: number; busy: number }) =>
  main(options).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  }),
);
program.parse();
