import { readFileSync } from 'node:fs';

/**
 * What the launcher saw of a starting process at one moment: the CPU it has used so far
 * (undefined where the platform does not tell: no /proc) and the size of its log.
 */
export interface ProgressSample {
  readonly cpuMs: number | undefined;
  readonly logBytes: number;
}

/** How one wait for readiness ends when the component does not answer. */
export type StartVerdict = 'waiting' | 'stalled' | 'timed-out';

/**
 * How long the launcher waits for a component: as long as it makes progress, up to
 * `timeoutMs` in all (`STACK_START_TIMEOUT`); one that makes none for `stallMs` is given up on
 * sooner. Progress is its CPU time or its log growing: a process compiling Cedar on a busy
 * machine advances slowly but advances, a deadlocked or idle one does neither.
 */
export interface ProgressBounds {
  readonly timeoutMs: number;
  readonly stallMs: number;
}

/** A component that neither uses CPU nor logs for this long is not going to become ready by itself. */
export const DEFAULT_STALL_MS = 30_000;

/**
 * Judges one wait from its samples, with the times the caller passes (no clock of its own):
 * `observe` after each unanswered ready probe. `cpuMs` is the CPU used since the first sample.
 */
export function createProgressWatch(bounds: ProgressBounds, startedAt: number, first: ProgressSample) {
  let last = first;
  let lastProgressAt = startedAt;
  return {
    observe(at: number, sample: ProgressSample): StartVerdict {
      const cpuMoved = sample.cpuMs !== undefined && last.cpuMs !== undefined && sample.cpuMs > last.cpuMs;
      const logMoved = sample.logBytes !== last.logBytes;
      // Where CPU cannot be read, silence proves nothing: only the overall bound applies.
      if (cpuMoved || logMoved || sample.cpuMs === undefined) lastProgressAt = at;
      last = sample;
      if (at - startedAt >= bounds.timeoutMs) return 'timed-out';
      if (at - lastProgressAt >= bounds.stallMs) return 'stalled';
      return 'waiting';
    },
    /** CPU ms used since the first sample, when the platform tells. */
    get cpuMs(): number | undefined {
      return last.cpuMs === undefined || first.cpuMs === undefined ? undefined : last.cpuMs - first.cpuMs;
    },
  };
}

/** Ticks per second of /proc's CPU fields (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU ms (user + system) process `pid` has used, from /proc/<pid>/stat; undefined off Linux or once it is gone. */
export function processCpuMs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces: fields are counted from the last `)`.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
