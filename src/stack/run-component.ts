import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { openPrivateFile } from '../files';
import { portInUseHint } from './check-ports';
import { localBase, type Component } from './components';

/** A started component process and where its log goes. */
export interface RunningComponent {
  readonly component: Component;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Size of the log when this run started: earlier runs' lines are not this run's story. */
  readonly logOffset: number;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
}

const ext = __filename.endsWith('.ts') ? '.ts' : '.js';

/** The compiled or source entry file of a component, if that component exists yet. */
export function entryFile(component: Component): string | undefined {
  const file = join(__dirname, '..', `${component.entry}${ext}`);
  return existsSync(file) ? file : undefined;
}

/**
 * Starts a component as its own Node process (components share nothing but HTTP), with
 * stdout and stderr appended to `<logDir>/<name>.log`. Under ts-node-dev (`npm run dev`)
 * children run from source through ts-node as well. Each child gets an IPC channel and
 * `watch-parent` preloaded, so it stops when the launcher goes away however it went.
 * `execPath` is the Node that runs it (a bench may choose another): this one by default.
 */
export function runComponent(component: Component, file: string, logDir: string, execPath: string = process.execPath): RunningComponent {
  const logFile = join(logDir, `${component.name}.log`);
  const fd = openPrivateFile(logFile); // 0600: logs carry user ids and request details
  const logOffset = fstatSync(fd).size;
  const runtime = ext === '.ts' ? ['-r', 'ts-node/register/transpile-only'] : [];
  const watchParent = join(__dirname, `watch-parent${ext}`);
  const child = spawn(execPath, [...runtime, '-r', watchParent, file], {
    stdio: ['ignore', fd, fd, 'ipc'],
    env: component.env === undefined ? process.env : { ...process.env, ...component.env },
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { component, child, logFile, logOffset, exited };
}

/**
 * Polls the component's ready path on the address it listens on until it answers 200,
 * the process dies, or time runs out. The error names the cause (a taken port) when the
 * log of this run shows it, and quotes only this run's log lines.
 */
export async function waitUntilReady(running: RunningComponent, host: string, timeoutMs: number): Promise<void> {
  const { component } = running;
  const url = `${localBase(host, component.port)}${component.readyPath}`;
  const deadline = Date.now() + timeoutMs;
  let died = false;
  void running.exited.then(() => (died = true));
  while (!died && Date.now() < deadline) {
    if (await answersOk(url)) return;
    await Promise.race([running.exited, new Promise((r) => setTimeout(r, 150))]);
  }
  const log = readLogSince(running.logFile, running.logOffset);
  const why = died ? 'exited during start-up' : `did not answer ${url} within ${timeoutMs / 1000} s`;
  const hint = /EADDRINUSE/.test(log) ? `\n${portInUseHint(component)}` : '';
  const lines = log.trimEnd().split('\n').slice(-15).join('\n') || '(nothing logged)';
  throw new Error(`${component.label} ${why}; its log from this run (${running.logFile}):\n${lines}${hint}`);
}

/**
 * One readiness request. The timeout is a ref'd timer on purpose: `AbortSignal.timeout` is
 * unref'd, and a fetch stuck on a peer that drops the connection would then let the launcher's
 * event loop run dry and exit 0 in the middle of start-up.
 */
async function answersOk(url: string): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 1000);
  try {
    return (await fetch(url, { signal: controller.signal })).ok;
  } catch {
    return false; // not listening yet
  } finally {
    clearTimeout(timer);
  }
}

/** What was appended to `file` after `offset` bytes. */
export function readLogSince(file: string, offset: number): string {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(Math.max(0, size - offset));
    readSync(fd, buffer, 0, buffer.length, offset);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
