/**
 * A bounded least-recently-used map. A JavaScript `Map` iterates in insertion order,
 * so re-inserting on a hit moves the entry to the young end and the first key is
 * always the oldest: O(1) get, set and eviction without a linked list of our own.
 */
export interface LruCache<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  clear(): void;
  readonly size: number;
}

/** Creates an LRU cache holding at most `capacity` entries (0 caches nothing). */
export function createLruCache<V>(capacity: number): LruCache<V> {
  if (!Number.isInteger(capacity) || capacity < 0) throw new RangeError('cache capacity must be a non-negative integer');
  const entries = new Map<string, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      if (capacity === 0) return;
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > capacity) entries.delete(entries.keys().next().value as string);
    },
    delete(key) {
      entries.delete(key);
    },
    clear() {
      entries.clear();
    },
    get size() {
      return entries.size;
    },
  };
}
