import type { Clock } from './clock';

/**
 * Counts failed sign-ins per key (a username, a client address) in fixed windows.
 * After `maxFailures` failures within `windowSeconds`, the key is locked until its
 * window ends.
 *
 * Memory is bounded by `maxEntries`, and a lock outlives any flood: when the table is
 * full, expired windows go first, then the unlocked window with the fewest failures
 * (the oldest among equals). An active lock, or a key with attempts under way, is never
 * evicted. When every entry is one of those, a key the table does not know cannot be
 * counted, so it is refused (fail closed) until the soonest lock ends; keys already
 * tracked keep working.
 */
export interface LoginThrottle {
  /**
   * Seconds until every given key may try again; 0 when none is locked. Also non-zero
   * when a key is new and the table is full of active locks (see above).
   */
  retryAfter(keys: readonly string[]): number;
  /**
   * Starts one attempt against every key, or says why not: `locked` (as {@link retryAfter}),
   * or `busy` when a key's remaining failures are all taken by attempts still being checked
   * (wait for {@link settled} and ask again). An attempt under way is not a failure: only
   * {@link end} with `failed` counts one, so a correct password is never counted, while
   * parallel guesses still never exceed the limit.
   */
  begin(keys: readonly string[]): { readonly kind: 'begun' } | { readonly kind: 'locked'; readonly retryAfter: number } | { readonly kind: 'busy' };
  /** Ends an attempt {@link begin} started; `failed` counts it as a failure. */
  end(keys: readonly string[], failed: boolean): void;
  /** Resolves when an attempt on one of `keys` ends. */
  settled(keys: readonly string[]): Promise<void>;
  /** Counts one failure against each key. A key that finds no room is not counted (call retryAfter first). */
  recordFailure(keys: readonly string[]): void;
  /** Forgets a key's failures (after a successful sign-in); attempts under way still count. */
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
  /** Attempts begun and not yet ended. */
  pending: number;
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
  // Waiters for an attempt on a key to end; only keys with attempts under way get any.
  const waiters = new Map<string, (() => void)[]>();

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
   * Frees slots until `needed` new keys fit; false when only active locks (and keys with
   * attempts under way) are left.
   * Evicts a tenth of the table at once, so a flood pays for one scan per batch rather
   * than per request. The sort is stable and maps iterate in insertion order, so among
   * equal failure counts the oldest window goes first.
   */
  function makeRoom(now: number, needed = 1): boolean {
    if (windows.size + needed <= maxEntries) return true;
    for (const [key, w] of windows) if (w.endsAt <= now) windows.delete(key);
    if (windows.size + needed <= maxEntries) return true;
    // A window with attempts under way stays too: forgetting it would admit more guesses.
    const unlocked = [...windows].filter(([, w]) => !locked(w) && w.pending === 0).sort(([, a], [, b]) => a.failures - b.failures);
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

  /** A fresh window for a key retryAfter has just made room for. */
  function open(key: string, now: number): Window {
    const w: Window = { failures: 0, pending: 0, endsAt: now + windowSeconds * 1000, limit: limitFor(key) };
    windows.set(key, w);
    return w;
  }

  function count(key: string, now: number): void {
    const w = live(key, now);
    if (w) w.failures += 1;
    else if (makeRoom(now)) open(key, now).failures = 1;
  }

  function retryAfter(keys: readonly string[]): number {
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
  }

  return {
    retryAfter,
    begin(keys) {
      const wait = retryAfter(keys);
      if (wait > 0) return { kind: 'locked', retryAfter: wait };
      const now = clock();
      const tracked = keys.map((key) => live(key, now) ?? open(key, now));
      if (tracked.some((w) => w.failures + w.pending >= w.limit)) return { kind: 'busy' };
      for (const w of tracked) w.pending += 1;
      return { kind: 'begun' };
    },
    end(keys, failed) {
      const now = clock();
      for (const key of keys) {
        const w = live(key, now);
        if (w && w.pending > 0) w.pending -= 1;
        if (failed) count(key, now);
        for (const wake of waiters.get(key) ?? []) wake();
        waiters.delete(key);
      }
    },
    settled(keys) {
      // Only keys with attempts under way are waited on: they are sure to end.
      const busy = keys.filter((key) => (windows.get(key)?.pending ?? 0) > 0);
      if (busy.length === 0) return Promise.resolve();
      return new Promise((resolve) => {
        for (const key of busy) waiters.set(key, [...(waiters.get(key) ?? []), resolve]);
      });
    },
    recordFailure(keys) {
      const now = clock();
      for (const key of keys) count(key, now);
    },
    reset(key) {
      const w = windows.get(key);
      if (w && w.pending > 0) w.failures = 0;
      else windows.delete(key);
    },
    size: () => windows.size,
  };
}
