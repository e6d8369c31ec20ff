// The whole stack for `npm run bench:stress`: every component in its own process, as
// `npm start` runs them, on free loopback ports and a throwaway data folder, run by the Node
// of the bench's choice. Unlike the launcher it never hides a death: it counts each one,
// keeps what the process printed as it died, and starts the component again so the load goes on.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../../src/config';
import { stackComponents } from '../../../src/stack/components';
import { readLogSince, runComponent, waitUntilReady, type RunningComponent } from '../../../src/stack/run-component';
import { describeEnd } from '../../../src/stack/supervise-component';
import { freePort } from '../../lib/free-port';
import type { NodeRuntime } from '../../lib/node-runtime';

/** A component's death during the run. */
export interface Crash {
  readonly component: string;
  /** `SIGTRAP`, `SIGABRT`, `exit code 1`… */
  readonly how: string;
  /** The first line of what V8 or Node printed as it died (`# unreachable code`, a stack's message). */
  readonly said: string;
}

/** A component's current run, the file it runs, and how often it was started again after a crash. */
interface Running {
  run: RunningComponent;
  readonly file: string;
  restarts: number;
}

export interface StressStack {
  readonly config: Config;
  readonly crashes: readonly Crash[];
  /** Resident memory of each component's current process, in MiB. */
  rssMiB(): Record<string, number>;
  /** Names of components started again after a crash (their memory is a new process's). */
  restarted(): string[];
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

function rssMiBOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The first telling line a dying process printed in its run (V8's fatal message, an error). */
function lastWords(run: RunningComponent): string {
  const lines = readLogSince(run.logFile, run.logOffset).split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));
  const fatal = lines.find((l) => /unreachable code|Check failed/.test(l)) ?? lines.find((l) => /Fatal|FATAL|Error/.test(l));
  return (fatal ?? lines[0] ?? '(nothing printed)').replace(/^#\s*/, '').slice(0, 160);
}

/** Starts IdP, control plane, sidecar edge and both apps on `runtime`, each awaited until ready. */
export async function startStressStack(runtime: NodeRuntime): Promise<StressStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-stress-'));
  const env: Record<string, string> = { OUTPOST_DATA_DIR: dataDir };
  for (const name of ['IDP_PORT', 'CONTROL_PLANE_PORT', 'EDGE_PORT', 'RBAC_PORT', 'TODO_PORT']) env[name] = String(await freePort());
  const config = loadConfig({ ...process.env, ...env });
  const logDir = join(dataDir, 'logs');
  const crashes: Crash[] = [];
  const running: Running[] = [];
  let stopping = false;
  let up = false;

  /** Once the stack is up, a death of `r`'s process is a crash: counted, and the component started again. */
  const watch = (r: Running): void => {
    const { run } = r;
    void run.exited.then((code) => {
      // A death while the stack starts fails the start (waitUntilReady sees it).
      if (stopping || !up) return;
      crashes.push({ component: run.component.name, how: describeEnd(run, code), said: lastWords(run) });
      r.restarts += 1;
      r.run = runComponent(run.component, r.file, logDir, runtime.nodeBin);
      watch(r);
    });
  };

  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  try {
    for (const component of stackComponents(config)) {
      const file = join(runtime.root, 'dist', 'src', `${component.entry}.js`);
      // The ports and the data folder go to the component's process only.
      const r: Running = { run: runComponent({ ...component, env }, file, logDir, runtime.nodeBin), file, restarts: 0 };
      running.push(r);
      watch(r);
      await waitUntilReady(r.run, '127.0.0.1', READY_TIMEOUT_MS);
    }
  } catch (err) {
    stopping = true;
    for (const r of running) r.run.child.kill('SIGKILL');
    throw err;
  }
  up = true;

  return {
    config,
    crashes,
    rssMiB: () => Object.fromEntries(running.map((r) => [r.run.component.name, rssMiBOf(r.run.child.pid)])),
    restarted: () => running.filter((r) => r.restarts > 0).map((r) => r.run.component.name),
    async stop() {
      stopping = true;
      await Promise.all(
        running.map(async ({ run }) => {
          if (run.child.exitCode !== null || run.child.signalCode !== null) return;
          run.child.kill('SIGTERM');
          const timer = setTimeout(() => run.child.kill('SIGKILL'), 8000);
          await run.exited;
          clearTimeout(timer);
        }),
      );
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
