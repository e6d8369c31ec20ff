import type { Timers } from '../../src/edge';

/** Timers that fire only when a test says so; every `setTimeout` is recorded with its delay. */
export interface ManualTimers {
  readonly timers: Timers;
  /** Delays of every timer ever scheduled, in order. */
  readonly delays: number[];
  /** Pending timers, oldest first. */
  pending(): { id: number; ms: number }[];
  /** Fires (and removes) every pending timer scheduled with exactly `ms`; returns how many fired. */
  fire(ms: number): number;
  /** Resolves once a timer with delay `ms` is pending (at once if one already is). */
  scheduled(ms: number): Promise<void>;
}

export function manualTimers(): ManualTimers {
  let next = 0;
  const pending = new Map<number, { ms: number; callback: () => void }>();
  const delays: number[] = [];
  const waiters: { ms: number; resolve: () => void }[] = [];
  return {
    delays,
    timers: {
      setTimeout(callback, ms) {
        const id = ++next;
        pending.set(id, { ms, callback });
        delays.push(ms);
        for (const w of waiters.filter((x) => x.ms === ms)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
        return id;
      },
      clearTimeout(handle) {
        pending.delete(handle as number);
      },
    },
    pending: () => [...pending].map(([id, t]) => ({ id, ms: t.ms })),
    fire(ms) {
      const due = [...pending].filter(([, t]) => t.ms === ms);
      for (const [id, t] of due) {
        pending.delete(id);
        t.callback();
      }
      return due.length;
    },
    scheduled(ms) {
      if ([...pending.values()].some((t) => t.ms === ms)) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ ms, resolve }));
    },
  };
}
