import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openPrivateFile } from '../files';
import type { Component } from './components';

/** A started component process and where its log goes. */
export interface RunningComponent {
  readonly component: Component;
  readonly child: ChildProcess;
  readonly logFile: string;
  /** Resolves with the exit code when the process ends. */
  readonly exited: Promise<number | null>;
}

/** The compiled or source entry file of a component, if that component exists yet. */
export function entryFile(component: Component): string | undefined {
  const srcDir = join(__dirname, '..');
  const ext = __filename.endsWith('.ts') ? '.ts' : '.js';
  const file = join(srcDir, `${component.entry}${ext}`);
  return existsSync(file) ? file : undefined;
}

/**
 * Starts a component as its own Node process (components share nothing but HTTP), with
 * stdout and stderr appended to `<logDir>/<name>.log`. Under ts-node-dev (`npm run dev`)
 * children run from source through ts-node as well.
 */
export function runComponent(component: Component, file: string, logDir: string): RunningComponent {
  const logFile = join(logDir, `${component.name}.log`);
  const fd = openPrivateFile(logFile); // 0600: logs carry user ids and request details
  const runtime = file.endsWith('.ts') ? ['-r', 'ts-node/register/transpile-only'] : [];
  const child = spawn(process.execPath, [...runtime, file], { stdio: ['ignore', fd, fd], env: process.env });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { component, child, logFile, exited };
}

/** Polls the component's ready path until it answers 200, the process dies, or time runs out. */
export async function waitUntilReady(running: RunningComponent, timeoutMs: number): Promise<void> {
  const url = `${running.component.url}${running.component.readyPath}`;
  const deadline = Date.now() + timeoutMs;
  let died = false;
  void running.exited.then(() => (died = true));
  while (!died && Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  const why = died ? 'exited during start-up' : `did not answer ${url} within ${timeoutMs / 1000} s`;
  throw new Error(`${running.component.label} ${why}; last log lines:\n${tail(running.logFile, 15)}`);
}

function tail(file: string, lines: number): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
