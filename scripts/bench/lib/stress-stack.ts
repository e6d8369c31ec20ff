// The whole stack for `npm run bench:stress`: every component in its own process, as
// `npm start` runs them, on free loopback ports and a throwaway data folder, run by the Node
// of the bench's choice. Unlike the launcher it never hides a death: it counts each one,
// keeps what the process printed as it died, and starts the component again so the load goes on.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../../src/config';
import { stackComponents, type Component } from '../../../src/stack/components';
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

/** One running component; `pid` changes when it is started again after a crash. */
interface Running {
  readonly component: Component;
  child: ChildProcess;
  logOffset: number;
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

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not become ready (${child.signalCode ?? (child.exitCode === null ? 'still running' : `exit code ${child.exitCode}`)})`);
}

function rssMiBOf(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** The first telling line a dying process printed after `offset` (V8's fatal message, an error). */
function lastWords(logFile: string, offset: number): string {
  const text = readFileSync(logFile, 'utf8').slice(offset);
  const lines = text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('{'));
  const fatal = lines.find((l) => /unreachable code|Check failed/.test(l)) ?? lines.find((l) => /Fatal|FATAL|Error/.test(l));
  return (fatal ?? lines[0] ?? '(nothing printed)').replace(/^#\s*/, '').slice(0, 160);
}

/** Starts IdP, control plane, sidecar edge and both apps on `runtime`, each awaited until ready. */
export async function startStressStack(runtime: NodeRuntime): Promise<StressStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'outpost-stress-'));
  const env: Record<string, string> = { OUTPOST_DATA_DIR: dataDir };
  for (const name of ['IDP_PORT', 'CONTROL_PLANE_PORT', 'EDGE_PORT', 'RBAC_PORT', 'TODO_PORT']) env[name] = String(await freePort());
  const config = loadConfig({ ...process.env, ...env });
  const childEnv = { ...process.env, ...env };
  const logDir = join(dataDir, 'logs');
  const crashes: Crash[] = [];
  const running: Running[] = [];
  let stopping = false;
  let up = false;

  const launch = (r: Running): void => {
    const logFile = join(logDir, `${r.component.name}.log`);
    const fd = openSync(logFile, 'a');
    r.logOffset = readFileSync(logFile).length;
    r.child = spawn(runtime.nodeBin, [join(runtime.root, 'dist', 'src', `${r.component.entry}.js`)], { stdio: ['ignore', fd, fd], env: childEnv });
    closeSync(fd);
    r.child.once('exit', (code, signal) => {
      // A death while the stack starts fails the start (waitReady sees it); later ones are crashes.
      if (stopping || !up) return;
      crashes.push({ component: r.component.name, how: signal ?? `exit code ${code}`, said: lastWords(logFile, r.logOffset) });
      r.restarts += 1;
      launch(r);
    });
  };

  mkdirSync(logDir, { recursive: true });
  try {
    for (const component of stackComponents(config)) {
      const r = { component, restarts: 0, logOffset: 0 } as Running;
      launch(r);
      running.push(r);
      await waitReady(`http://127.0.0.1:${component.port}${component.readyPath}`, r.child);
    }
  } catch (err) {
    stopping = true;
    for (const r of running) r.child.kill('SIGKILL');
    const last = running.at(-1);
    throw new Error(`${(err as Error).message}; its log: ${last ? lastWords(join(logDir, `${last.component.name}.log`), 0) : '-'}`);
  }
  up = true;

  return {
    config,
    crashes,
    rssMiB: () => Object.fromEntries(running.map((r) => [r.component.name, rssMiBOf(r.child.pid)])),
    restarted: () => running.filter((r) => r.restarts > 0).map((r) => r.component.name),
    async stop() {
      stopping = true;
      await Promise.all(
        running.map(
          (r) =>
            new Promise<void>((resolve) => {
              if (r.child.exitCode !== null || r.child.signalCode !== null) return resolve();
              r.child.once('exit', () => resolve());
              r.child.kill('SIGTERM');
              setTimeout(() => r.child.kill('SIGKILL'), 8000).unref();
            }),
        ),
      );
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
