import type { Clock } from './clock';

/**
 * Counts failed sign-ins per key (a username, a client address) in fixed windows.
 * After `maxFailures` failures within `windowSeconds`, the key is locked until its
 * window ends.
 *
 * Memory is bounded by `maxEntries`, and a lock outlives any flood: when the table is
 * full, expired windows go first, then the unlocked window with the fewest failures
 * (the oldest among equals). An active lock is never evicted. When every entry is an
 * active lock, a key the table does not know cannot be counted, so it is refused
 * (fail closed) until the soonest lock ends; keys already tracked keep working.
 */
export interface LoginThrottle {
  /**
   * Seconds until every given key may try again; 0 when none is locked. Also non-zero
   * when a key is new and the table is full of active locks (see above).
   */
  retryAfter(keys: readonly string[]): number;
  /** Counts one failure against each key. A key that finds no room is not counted (call retryAfter first). */
  recordFailure(keys: readonly string[]): void;
  /** Takes back one counted failure from each key (an attempt counted up front that succeeded). */
  forgive(keys: readonly string[]): void;
  /** Forgets a key (after a successful sign-in). */
  reset(key: string): void;
  /** Number of keys currently tracked (for tests). */
  size(): number;
}

/** Settings of {@link createLoginThrottle}. */
export interface LoginThrottleOptions {
  /** Failures that lock a key; {@link LoginThrottleOptions.limitFor} may raise it per key. */
  readonly maxFailures: number;
  /** The limit of one key (default `maxFailures` for every key). */
  readonly limitFor?: (key: string) => number;
  readonly windowSeconds: number;
  readonly clock: Clock;
  /** Most keys tracked at once (default 10,000). */
  readonly maxEntries?: number;
}

interface Window {
  failures: number;
  endsAt: number;
  /** Failures that lock this key. */
  limit: number;
}

/** Builds an in-memory {@link LoginThrottle}. One process only; a cluster would share it in Redis. */
export function createLoginThrottle(options: LoginThrottleOptions): LoginThrottle {
  const { maxFailures, windowSeconds, clock, maxEntries = 10_000 } = options;
  const limitFor = options.limitFor ?? (() => maxFailures);
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

  const locked = (w: Window) => w.failures >= w.limit;

  /**
   * Frees slots until `needed` new keys fit; false when only active locks are left.
   * Evicts a tenth of the table at once, so a flood pays for one scan per batch rather
   * than per request. The sort is stable and maps iterate in insertion order, so among
   * equal failure counts the oldest window goes first.
   */
  function makeRoom(now: number, needed = 1): boolean {
    if (windows.size + needed <= maxEntries) return true;
    for (const [key, w] of windows) if (w.endsAt <= now) windows.delete(key);
    if (windows.size + needed <= maxEntries) return true;
    const unlocked = [...windows].filter(([, w]) => !locked(w)).sort(([, a], [, b]) => a.failures - b.failures);
    const batch = Math.max(windows.size + needed - maxEntries, Math.ceil(maxEntries / 10));
    for (const [key] of unlocked.slice(0, batch)) windows.delete(key);
    return windows.size + needed <= maxEntries;
  }

  /** Milliseconds until the soonest active lock ends (the table is full of them). */
  function untilRoom(now: number): number {
    let soonest = Infinity;
    for (const w of windows.values()) soonest = Math.min(soonest, w.endsAt);
    return Number.isFinite(soonest) ? soonest - now : windowSeconds * 1000;
  }

  return {
    retryAfter(keys) {
      const now = clock();
      let wait = 0;
      let unknown = 0;
      for (const key of keys) {
        const w = live(key, now);
        if (!w) unknown += 1;
        else if (locked(w)) wait = Math.max(wait, w.endsAt - now);
      }
      if (unknown > 0 && !makeRoom(now, unknown)) wait = Math.max(wait, untilRoom(now));
      return Math.ceil(wait / 1000);
    },
    recordFailure(keys) {
      const now = clock();
      for (const key of keys) {
        const w = live(key, now);
        if (w) w.failures += 1;
        else if (makeRoom(now)) windows.set(key, { failures: 1, endsAt: now + windowSeconds * 1000, limit: limitFor(key) });
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
