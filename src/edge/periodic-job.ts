import type { CoalescingJob } from './coalescing-job';
import type { Timers } from './timers';

/** A coalescing job that also runs every `intervalMs`. */
export interface PeriodicJob<T> {
  /** Starts the timer; the first run happens at once. */
  start(): void;
  /** Runs now, skipping the timer (a relay command); coalesces with a run in progress. */
  runNow(): Promise<T>;
  stop(): void;
}

/**
 * Drives a {@link CoalescingJob} from a timer. The next timer run is scheduled when the
 * previous one ends, so a slow control plane can never stack runs up. `afterTimerRun`
 * sees each timer run's result (or error) — the edge uses it to send a `status` frame
 * and to log failures.
 */
export function createPeriodicJob<T>(options: {
  job: CoalescingJob<T>;
  intervalMs: number;
  timers: Timers;
  afterTimerRun: (result: { ok: true; value: T } | { ok: false; error: unknown }) => void;
}): PeriodicJob<T> {
  const { job, intervalMs, timers } = options;
  let handle: unknown;
  let stopped = true;

  function tick(): void {
    if (stopped) return;
    job.run().then(
      (value) => options.afterTimerRun({ ok: true, value }),
      (error: unknown) => options.afterTimerRun({ ok: false, error }),
    ).finally(() => {
      if (!stopped) handle = timers.setTimeout(tick, intervalMs);
    });
  }

  return {
    start() {
      stopped = false;
      tick();
    },
    runNow: () => job.run(),
    stop() {
      stopped = true;
      timers.clearTimeout(handle);
    },
  };
}
