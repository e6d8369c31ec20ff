/**
 * The timer functions the edge uses, injected so tests can fire a backoff or a sync
 * timer on demand instead of sleeping.
 */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Real timers, unref'd: only sockets and servers keep the process alive. */
export const systemTimers: Timers = {
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};

/** `work`'s value, or `'timeout'` once `ms` have passed first; the timer is cleared either way. */
export async function withinMs<T>(work: Promise<T>, ms: number, timers: Timers): Promise<T | 'timeout'> {
  let handle: unknown;
  const expired = new Promise<'timeout'>((resolve) => {
    handle = timers.setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    timers.clearTimeout(handle);
  }
}
