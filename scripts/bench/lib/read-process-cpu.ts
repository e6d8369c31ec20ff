// CPU time of the processes a benchmark started, from /proc (Linux). A bench counts only its
// own processes and their descendants (the PostgreSQL postmaster's backends, a redis-server's
// forks), found by parent pid; never every process with a matching name, which on a shared
// machine includes other jobs' servers.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU fields (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat a bench needs, CPU in ms. */
export interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime: CPU the process itself used. */
  readonly ownMs: number;
  /** cutime + cstime: CPU of its children that have exited and that it waited for. */
  readonly reapedChildrenMs: number;
}

/**
 * Parses one /proc/<pid>/stat line (proc(5)). The command name in parentheses may itself
 * hold spaces and `)`, so the fields are counted from the last `)`.
 */
export function parseStat(text: string): ProcStat {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error('not a /proc/<pid>/stat line');
  // After the name: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
  const fields = text.slice(close + 2).trim().split(' ');
  const field = (n: number) => Number(fields[n - 3]);
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return { pid: Number(text.slice(0, text.indexOf(' '))), ppid: field(4), ownMs: ms(field(14) + field(15)), reapedChildrenMs: ms(field(16) + field(17)) };
}

function readStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return undefined; // exited meanwhile
  }
}

/** CPU ms a process has used itself so far; 0 once it is gone. */
export function cpuMsOf(pid: number): number {
  return readStat(pid)?.ownMs ?? 0;
}

/** CPU ms process `pid` has used itself and reaped from its exited children; 0 once it is gone. */
export function ownAndReapedMs(pid: number): number {
  const stat = readStat(pid);
  return stat ? stat.ownMs + stat.reapedChildrenMs : 0;
}

/** The living processes among `roots` and all their descendants, by parent pid. */
export function processTree(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat.pid]);
  }
  const found = new Set<number>();
  const queue = roots.filter((pid) => readStat(pid) !== undefined);
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    if (found.has(pid)) continue;
    found.add(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return [...found];
}

/**
 * CPU ms used so far by `roots` and their descendants: each living process's own time plus
 * what it has reaped from exited children (a PostgreSQL backend that ended is counted in
 * the postmaster's). Take the difference of two readings around the measured work.
 */
export function treeCpuMs(roots: readonly number[]): number {
  return processTree(roots).reduce((sum, pid) => {
    const stat = readStat(pid);
    return sum + (stat ? stat.ownMs + stat.reapedChildrenMs : 0);
  }, 0);
}
