/**
 * Runs one async task at a time. A request while a run is in progress does not start a
 * second, overlapping run and is not dropped either: all such requests share ONE
 * follow-up run that starts when the current one ends, so every caller gets a result
 * that reflects the state after its request arrived. (A `discovery` exec during a timer
 * run must see the image pushed a moment ago, not the one the timer run fetched.)
 * A run may carry a deadline (a relay command's, which its downloads may spend on
 * retries); the follow-up run carries the latest deadline any of its callers gave.
 */
export interface CoalescingJob<T> {
  /** Runs the task now, or joins the single follow-up run if one is in progress. */
  run(deadline?: number): Promise<T>;
  /** True while a run is in progress. */
  readonly running: boolean;
  /** Resolves once no run is in progress or queued (failures included). */
  idle(): Promise<void>;
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function defer<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** The later of two deadlines; none only when neither caller gave one. */
function later(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}

/** Wraps `task` so concurrent requests coalesce into at most one follow-up run. */
export function createCoalescingJob<T>(task: (deadline: number | undefined) => Promise<T>): CoalescingJob<T> {
  let current: Promise<T> | undefined;
  let followUp: (Deferred<T> & { deadline: number | undefined }) | undefined;

  function start(deadline: number | undefined): Promise<T> {
    const run = (async () => task(deadline))();
    current = run;
    const settle = () => {
      current = undefined;
      const next = followUp;
      followUp = undefined;
      if (next) start(next.deadline).then(next.resolve, next.reject);
    };
    run.then(settle, settle);
    return run;
  }

  return {
    run(deadline) {
      if (!current) return start(deadline);
      if (followUp) followUp.deadline = later(followUp.deadline, deadline);
      else followUp = { ...defer<T>(), deadline };
      return followUp.promise;
    },
    get running() {
      return current !== undefined;
    },
    async idle() {
      while (current) await current.catch(() => undefined);
    },
  };
}
