/**
 * A control plane as a real process (`src/control-plane-server/main.ts` compiled, test/helpers/compiled.ts), for tests
 * of several nodes: killed with SIGKILL like a crash, or stopped with SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../scripts/lib/free-port';
import { findProjectRoot } from '../../src/config';
import { compiled } from '../helpers/compiled';

/** A running control-plane process. */
export interface ControlPlaneProcess {
  readonly port: number;
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr (for failure messages). */
  output(): string;
  /** SIGKILL, and resolves once it exited. */
  kill(): Promise<void>;
  /** SIGTERM (a clean shutdown), and resolves once it exited. */
  stop(): Promise<void>;
}


/** Starts `main.ts` with `env` on a free port; resolves once `/healthz` answers (fails if it exits first). */
export async function startControlPlaneProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ControlPlaneProcess> {
  const root = findProjectRoot();
  const port = await freePort();
  const child = spawn(process.execPath, [compiled('src/control-plane-server/main.ts')], {
    cwd: root,
    // info: the line that says it listens is what the start waits on.
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', CONTROL_PLANE_PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  // Ready is the process's own line once its server listens; an exit before it is a failure.
  let timer: NodeJS.Timeout | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    const listening = () => {
      if (output.includes('"msg":"control plane and relay listening"')) resolve();
    };
    child.stdout!.on('data', listening);
    void exited.then(() => reject(new Error(`control plane exited before it was ready:\n${output}`)));
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`control plane not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
  });
  try {
    await ready;
  } finally {
    clearTimeout(timer);
  }
  const health = await fetch(`${url}/healthz`);
  if (!health.ok) throw new Error(`control plane listening but /healthz answered ${health.status}:\n${output}`);
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  return { port, url, child, output: () => output, kill: () => end('SIGKILL'), stop: () => end('SIGTERM') };
}
