// `npm start` from nothing to its banner:  npm run bench:start [-- --runs 5]
//
// Each run starts the launcher as `npm start` does after its build (dist/src/stack/main.js) on
// a fresh data folder, as a first start from a clone is (demo tenant, IdP key and directory
// seeded, every edge's first image compiled), with every component on a free loopback port.
// It prints, from the spawn, when each "starting … ready" line and the "Outpost is up" banner
// appeared, and the CPU the launcher and its components had used by the banner; then stops
// the stack with Ctrl-C (SIGINT) and waits for it. Figures: median (min–max) over the runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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

/** One start on a fresh data folder and free ports, stopped with SIGINT once its banner is out. */
async function startOnce(labels: readonly string[], portVars: readonly string[]): Promise<StartRun> {
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
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(options: { runs: number }): Promise<void> {
  console.log(`Start bench: ${machineLine()}\n`);
  const components = stackComponents(loadConfig({}));
  const labels = components.map((c) => c.label);
  const runs: StartRun[] = [];
  for (let i = 0; i < options.runs; i += 1) runs.push(await startOnce(labels, components.map((c) => c.portVar)));
  console.log(`npm start on a fresh data folder, ${options.runs} runs (s from the spawn; CPU of every process of the stack by the banner):`);
  printTable(
    ['run', ...labels.map((l) => `${l} ready`), 'banner', 'CPU s'],
    runs.map((r, i) => [String(i + 1), ...r.ready.map((ms) => ms / 1000), r.bannerMs / 1000, r.cpuMs / 1000]),
    2,
  );
  const seconds = (ms: readonly number[]) => formatSpread(spreadOf(ms.map((v) => v / 1000)));
  console.log(`\nTo the banner: ${seconds(runs.map((r) => r.bannerMs))} s; CPU by then: ${seconds(runs.map((r) => r.cpuMs))} s (median (min–max)).`);
  console.log(`Load average at the end: ${loadAverage()}`);
}

const program = scriptCommand(
  'npm run bench:start --',
  'time `npm start` on a fresh data folder, component by component, to its banner, with the CPU it used; then stop it with Ctrl-C (each run on free loopback ports)',
  'npm run bench:start -- --runs 3',
);
program.option('--runs <n>', 'starts to time, one after the other (1–50)', wholeNumber(1, 50), 5);
program.action((options: { runs: number }) =>
  main(options).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  }),
);
program.parse();
