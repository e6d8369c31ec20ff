import { backoffCeiling, backoffDelay } from './backoff';
import type { CoalescingJob } from './coalescing-job';
import type { Timers } from './timers';

/** A coalescing job that also runs every `intervalMs`. */
export interface PeriodicJob<T> {
  /** Starts the timer; the first run happens at once. */
  start(): void;
  /** Runs now, skipping the timer (a relay command, with its deadline); coalesces with a run in progress. */
  runNow(deadline?: number): Promise<T>;
  stop(): void;
}

/**
 * After a failed timer run the next one comes sooner: a uniform draw below 1 s, the ceiling
 * doubling with each failure in a row, never sooner than 250 ms. Once the ceiling reaches the
 * interval the runs are the interval apart again, so an edge asks a control plane that is down
 * no more often than one that is up, after its first few tries (six at the 60 s default).
 */
export const SYNC_RETRY = { baseMs: 1_000, minMs: 250 } as const;

/**
 * Drives a {@link CoalescingJob} from a timer. The next timer run is scheduled when the
 * previous one ends, so a slow control plane can never stack runs up. A failed run is
 * tried again after a backoff ({@link SYNC_RETRY}) rather than a whole interval later: an
 * edge whose first sync timed out (its event loop busy compiling Cedar, say) would
 * otherwise answer 503 for a minute with the control plane up. `afterTimerRun` sees each
 * timer run's result (or error) — the edge uses it to send a `status` frame and to log failures.
 */
export function createPeriodicJob<T>(options: {
  job: CoalescingJob<T>;
  intervalMs: number;
  timers: Timers;
  /** Uniform in [0, 1), for the retry's jitter; injected for tests. */
  random?: () => number;
  afterTimerRun: (result: { ok: true; value: T } | { ok: false; error: unknown }) => void;
}): PeriodicJob<T> {
  const { job, intervalMs, timers } = options;
  const retry = { baseMs: SYNC_RETRY.baseMs, capMs: intervalMs, random: options.random ?? Math.random };
  let handle: unknown;
  let stopped = true;
  let failuresInARow = 0;

  function nextDelay(): number {
    const attempt = failuresInARow - 1;
    if (failuresInARow === 0 || backoffCeiling(attempt, retry) >= intervalMs) return intervalMs;
    return Math.max(SYNC_RETRY.minMs, backoffDelay(attempt, retry));
  }

  function tick(): void {
    if (stopped) return;
    job.run().then(
      (value) => {
        failuresInARow = 0;
        options.afterTimerRun({ ok: true, value });
      },
      (error: unknown) => {
        failuresInARow += 1;
        options.afterTimerRun({ ok: false, error });
      },
    ).finally(() => {
      if (!stopped) handle = timers.setTimeout(tick, nextDelay());
    });
  }

  return {
    start() {
      stopped = false;
      tick();
    },
    runNow: (deadline) => job.run(deadline),
    stop() {
      stopped = true;
      timers.clearTimeout(handle);
    },
  };
}
