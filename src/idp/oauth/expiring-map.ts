import type { Clock } from '../clock';

/**
 * A bounded in-memory map whose entries expire. Expired entries read as absent; when full,
 * expired entries are swept and then the oldest is evicted, so a flood of sign-ins costs
 * memory up to `maxEntries` and no more (an evicted code or session simply has to start over).
 */
export interface ExpiringMap<V> {
  get(key: string): V | undefined;
  set(key: string, value: V, ttlSeconds: number): void;
  delete(key: string): void;
}

/** Builds an {@link ExpiringMap} on the injected clock. */
export function createExpiringMap<V>(clock: Clock, maxEntries: number): ExpiringMap<V> {
  const entries = new Map<string, { value: V; expiresAt: number }>();
  let sweptAt = Number.NEGATIVE_INFINITY;
  return {
    get(key) {
      const entry = entries.get(key);
      if (entry && entry.expiresAt <= clock()) entries.delete(key);
      return entry && entry.expiresAt > clock() ? entry.value : undefined;
    },
    set(key, value, ttlSeconds) {
      const now = clock();
      if (!entries.has(key) && entries.size >= maxEntries) {
        // A full sweep at most once a second: under a flood every other insert is O(1).
        if (now - sweptAt >= 1000) {
          sweptAt = now;
          for (const [k, e] of entries) if (e.expiresAt <= now) entries.delete(k);
        }
        // Maps iterate in insertion order: the first key is the oldest entry.
        while (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
      }
      entries.set(key, { value, expiresAt: now + ttlSeconds * 1000 });
    },
    delete(key) {
      entries.delete(key);
    },
  };
}
