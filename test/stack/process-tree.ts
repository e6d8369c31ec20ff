import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The pids whose parent is `pid`, from /proc (Linux): what a launcher has started and not yet reaped. */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …; comm may hold spaces and parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** The argv of process `pid`, or `[]` once it is gone. */
export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}

/**
 * Stops a launcher a test started and left running (a failed test): SIGTERM, then SIGKILL
 * after `graceMs`, and waits for it to exit. Does nothing once it has exited.
 */
export async function stopLauncher(launcher: ChildProcess | undefined, exited: Promise<unknown>, graceMs: number): Promise<void> {
  if (!launcher || launcher.exitCode !== null || launcher.signalCode !== null) return;
  launcher.kill('SIGTERM');
  const timer = setTimeout(() => launcher.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
