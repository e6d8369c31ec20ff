import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openPrivateFile } from '../files';
import { portInUseHint } from './check-ports';
import { localBase, type Component } from './components';
import { holdsListeningSocket } from './listening-socket';
import { createProgressWatch, DEFAULT_STALL_MS, processCpuMs, type StartVerdict } from './start-progress';

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

/** What {@link waitUntilReady} needs beyond the overall bound; each has a real default, tests pass their own. */
export interface ReadyWaitOptions {
  /** Given up on sooner when it neither uses CPU nor logs for this long (default {@link DEFAULT_STALL_MS}). */
  readonly stallMs?: number;
  /** The setting that raises the overall bound, named in the failure (`STACK_START_TIMEOUT`). */
  readonly timeoutSetting?: string;
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** One readiness probe of `url`: true once it answers 200. */
  readonly answers?: (url: string) => Promise<boolean>;
  /** CPU ms the process has used so far; undefined where the platform does not tell. */
  readonly cpuMs?: (pid: number | undefined) => number | undefined;
  /** Whether the process holds the socket listening on the port; undefined where the platform does not tell. */
  readonly holdsPort?: (pid: number | undefined, port: number) => boolean | undefined;
}

/** A component not ready: why (`stalled`, `timed-out` or `exited`) besides the whole story in `message`. */
export class NotReadyError extends Error {
  constructor(
    readonly reason: 'exited' | 'stalled' | 'timed-out',
    message: string,
  ) {
    super(message);
    this.name = 'NotReadyError';
  }
}

/** Seconds as the failures print them: `30 s`, `2.5 s`. */
const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

/**
 * Polls the component's ready path on the address it listens on until it answers 200, the
 * process dies, it makes no progress (neither CPU nor log output) for `stallMs`, or
 * `timeoutMs` pass in all: a component that is busy (Cedar compiling on a loaded machine) is
 * waited for, one that is stuck is not. The error names the component, why it was given up
 * on, the CPU it used, what it last logged (what it was doing) and this run's last log lines,
 * and the cause (a taken port) when the log shows it.
 */
export async function waitUntilReady(running: RunningComponent, host: string, timeoutMs: number, options: ReadyWaitOptions = {}): Promise<void> {
  const { component } = running;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const answers = options.answers ?? answersOk;
  const cpuOf = options.cpuMs ?? processCpuMs;
  const holdsPort = options.holdsPort ?? holdsListeningSocket;
  const stallMs = options.stallMs ?? DEFAULT_STALL_MS;
  const url = `${localBase(host, component.port)}${component.readyPath}`;
  const sample = () => ({ cpuMs: cpuOf(running.child.pid), logBytes: logSize(running.logFile) });
  const startedAt = now();
  const watch = createProgressWatch({ timeoutMs, stallMs }, startedAt, sample());
  let died = false;
  void running.exited.then(() => (died = true));
  let verdict: StartVerdict = 'waiting';
  while (!died && verdict === 'waiting') {
    // Ready only when the answer comes from the process we started: another one on the port
    // answers 200 too, while ours dies with EADDRINUSE.
    if ((await answers(url)) && holdsPort(running.child.pid, component.port) !== false) return;
    await Promise.race([running.exited, sleep(150)]);
    if (!died) verdict = watch.observe(now(), sample());
  }
  const log = readLogSince(running.logFile, running.logOffset).trimEnd();
  const logged = log === '' ? [] : log.split('\n');
  const cpu = watch.cpuMs;
  const busy = cpu === undefined ? '' : `${seconds(cpu)} of CPU in this run`;
  let why: string;
  if (died) why = 'exited during start-up';
  else if (verdict === 'stalled') why = `did not answer ${url}: it made no progress (no CPU used, nothing logged) for ${seconds(stallMs)}, after ${busy || 'running'} in ${seconds(now() - startedAt)}`;
  else why = `did not answer ${url} within ${seconds(timeoutMs)}${options.timeoutSetting ? ` (${options.timeoutSetting} raises it)` : ''}, though still working${busy ? `: ${busy}` : ''}`;
  // What it was doing: its last line, or that it was busy before logging anything.
  const doing = logged.length > 0 ? `its last log line: ${logged.at(-1)!.slice(0, 300)}` : busy ? `nothing logged yet, busy before its first log line (${busy})` : 'nothing logged';
  const hint = /EADDRINUSE/.test(log) ? `\n${portInUseHint(component)}` : '';
  const lines = logged.length > 0 ? logged.slice(-15).join('\n') : `(${doing})`;
  throw new NotReadyError(died ? 'exited' : verdict === 'stalled' ? 'stalled' : 'timed-out', `${component.label} ${why}; ${doing}\nIts log from this run (${running.logFile}):\n${lines}${hint}`);
}

/** The size of `file` now; 0 when it cannot be read. */
function logSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
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
