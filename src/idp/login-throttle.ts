import type { Clock } from './clock';

/**
 * Counts failed sign-ins per key (a username, a client address) in fixed windows.
 * After `maxFailures` failures within `windowSeconds`, the key is blocked until its
 * window ends. Memory is bounded: at most `maxEntries` keys are tracked, expired ones
 * are swept first and otherwise the oldest entry is evicted.
 */
export interface LoginThrottle {
  /** Seconds until every given key may try again; 0 when none is blocked. */
  retryAfter(keys: readonly string[]): number;
  /** Counts one failure against each key. */
  recordFailure(keys: readonly string[]): void;
  /** Takes back one counted failure from each key (an attempt counted up front that succeeded). */
  forgive(keys: readonly string[]): void;
  /** Forgets a key (after a successful sign-in). */
  reset(key: string): void;
  /** Number of keys currently tracked (for tests). */
  size(): number;
}

export interface LoginThrottleOptions {
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly clock: Clock;
  readonly maxEntries?: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

/** Builds an in-memory {@link LoginThrottle}. One process only; a cluster would share it in Redis. */
export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const { maxFailures, windowSeconds, clock, maxEntries = 10_000 } = options;
  if (maxFailures < 1 || windowSeconds < 1 || maxEntries < 1) throw new Error('invalid login throttle options');
  const windows = new Map<string, Window>();

  function live(key: string, now: number): Window | undefined {
    const w = windows.get(key);
    if (w && w.endsAt <= now) {
      windows.delete(key);
      return undefined;
    }
    return w;
  }

  function makeRoom(now: number): void {
    if (windows.size < maxEntries) return;
    for (const [key, w] of windows) if (w.endsAt <= now) windows.delete(key);
    // Maps iterate in insertion order: the first key is the oldest window.
    while (windows.size >= maxEntries) windows.delete(windows.keys().next().value as string);
  }

  return {
    retryAfter(keys) {
      const now = clock();
      let wait = 0;
      for (const key of keys) {
        const w = live(key, now);
        if (w && w.failures >= maxFailures) wait = Math.max(wait, Math.ceil((w.endsAt - now) / 1000));
      }
      return wait;
    },
    recordFailure(keys) {
      const now = clock();
      for (const key of keys) {
        const w = live(key, now);
        if (w) {
          w.failures += 1;
          continue;
        }
        makeRoom(now);
        windows.set(key, { failures: 1, endsAt: now + windowSeconds * 1000 });
      }
    },
    forgive(keys) {
      const now = clock();
      for (const key of keys) {
        const w = live(key, now);
        if (w && w.failures > 0) w.failures -= 1;
      }
    },
    reset(key) {
      windows.delete(key);
    },
    size: () => windows.size,
  };
}
