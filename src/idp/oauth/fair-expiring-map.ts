import type { Clock } from '../clock';

/**
 * A bounded in-memory map whose entries expire and each belong to an owner (a user and
 * client, a client address). It is shared fairly: one owner's flood only ever costs that
 * owner, never anyone holding less.
 *
 * - An owner holds at most `maxPerOwner` entries; one more replaces that owner's oldest.
 * - When the table is full, the owner holding the most entries loses its oldest (the adding
 *   owner first when it is among them), so a quiet owner's single entry outlives any flood.
 * - When no owner holds more than one entry, a newcomer is refused rather than pushing out
 *   someone else's entry: {@link FairExpiringMap.add} answers false.
 *
 * Every entry lives the same `ttlSeconds`, so insertion order is expiry order and expired
 * entries are dropped from the front as they are met: no sweep ever walks the whole table.
 */
export interface FairExpiringMap<V> {
  get(key: string): V | undefined;
  /** Adds a new entry for `owner`; false when refused (see above). */
  add(key: string, owner: string, value: V): boolean;
  delete(key: string): void;
  /** Whole seconds (at least 1) until the oldest entry expires: the Retry-After of a refusal. */
  secondsUntilRoom(): number;
  /** Live entries (for tests). */
  size(): number;
}

/** Settings of {@link createFairExpiringMap}. */
export interface FairExpiringMapOptions {
  readonly clock: Clock;
  readonly ttlSeconds: number;
  readonly maxEntries: number;
  readonly maxPerOwner: number;
}

interface Entry<V> {
  readonly value: V;
  readonly owner: string;
  readonly expiresAt: number;
}

const first = <T>(items: Iterable<T>): T => items[Symbol.iterator]().next().value as T;

/** Builds a {@link FairExpiringMap} on the injected clock. */
export function createFairExpiringMap<V>(options: FairExpiringMapOptions): FairExpiringMap<V> {
  const { clock, ttlSeconds, maxEntries, maxPerOwner } = options;
  if (![ttlSeconds, maxEntries, maxPerOwner].every((n) => Number.isInteger(n) && n >= 1)) throw new Error('invalid fair map options');
  const entries = new Map<string, Entry<V>>();
  // Each owner's keys, oldest first; owners grouped by how many entries they hold, so the
  // largest holder is found without a scan (its count changes by one at a time).
  const owners = new Map<string, Set<string>>();
  const byCount = new Map<number, Set<string>>();
  let maxCount = 0;

  function recount(owner: string, from: number, to: number): void {
    const before = byCount.get(from);
    before?.delete(owner);
    if (before?.size === 0) byCount.delete(from);
    if (to > 0) {
      const after = byCount.get(to) ?? new Set<string>();
      byCount.set(to, after.add(owner));
      maxCount = Math.max(maxCount, to);
    }
    while (maxCount > 0 && !byCount.has(maxCount)) maxCount -= 1;
  }

  function remove(key: string): void {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    const keys = owners.get(entry.owner) as Set<string>;
    keys.delete(key);
    recount(entry.owner, keys.size + 1, keys.size);
    if (keys.size === 0) owners.delete(entry.owner);
  }

  function dropExpired(now: number): void {
    for (const [key, entry] of entries) {
      if (entry.expiresAt > now) break;
      remove(key);
    }
  }

  /** Whose oldest entry goes when the table is full: the adder if among the largest holders. */
  function victim(owner: string): string | undefined {
    if ((owners.get(owner)?.size ?? 0) === maxCount) return owner;
    return maxCount > 1 ? first(byCount.get(maxCount) as Set<string>) : undefined;
  }

  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expiresAt > clock()) return entry.value;
      remove(key);
      return undefined;
    },
    add(key, owner, value) {
      const now = clock();
      dropExpired(now);
      remove(key);
      const mine = owners.get(owner);
      while (mine && mine.size >= maxPerOwner) remove(first(mine));
      if (entries.size >= maxEntries) {
        const loser = victim(owner);
        if (loser === undefined) return false;
        remove(first(owners.get(loser) as Set<string>));
      }
      entries.set(key, { value, owner, expiresAt: now + ttlSeconds * 1000 });
      const keys = owners.get(owner) ?? new Set<string>();
      owners.set(owner, keys.add(key));
      recount(owner, keys.size - 1, keys.size);
      return true;
    },
    delete: remove,
    secondsUntilRoom() {
      const oldest = entries.size === 0 ? undefined : first(entries.values());
      return Math.max(1, Math.ceil(((oldest?.expiresAt ?? 0) - clock()) / 1000));
    },
    size() {
      dropExpired(clock());
      return entries.size;
    },
  };
}
