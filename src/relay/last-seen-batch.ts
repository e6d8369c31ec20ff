import type { InstanceKey } from './registration';

/**
 * How `last_seen` writes from heartbeat pongs are batched (docs/reference/limits.md): pongs
 * are gathered for `flushMs`, then written as one statement per tenant per `maxIds` edges. One
 * write per pong was 19,000 statements per heartbeat period at 19,000 edges — the event loop
 * stalled on them, and on a locked database each could wait the 50 ms busy timeout.
 */
export const LAST_SEEN_BATCH = Object.freeze({ flushMs: 1000, maxIds: 500 });

/** Dependencies of {@link createLastSeenBatch}. */
export interface LastSeenBatchDeps {
  /** One statement: these instances of the tenant were seen at `now`. */
  readonly touchMany: (tenantId: string, instanceIds: readonly string[], now: number) => Promise<unknown>;
  /** Runs a registration write, logging a refusal; never rejects (`RelayDatabase.write`). */
  readonly write: (what: string, instanceId: string, work: () => Promise<unknown>) => Promise<boolean>;
  /** Whether the edge is still held by this relay when the batch is written (a closed one is not touched). */
  readonly held: (key: InstanceKey) => boolean;
  readonly now: () => number;
  readonly flushMs?: number;
  readonly maxIds?: number;
}

/** The pongs waiting to be written. */
export interface LastSeenBatch {
  /** Notes that the edge answered a ping. */
  add(key: InstanceKey): void;
  /** Drops what is waiting and stops the timer (on close, which marks every edge disconnected anyway). */
  stop(): void;
}

/** Gathers pongs and writes their `last_seen` in batches (see {@link LAST_SEEN_BATCH}). */
export function createLastSeenBatch(deps: LastSeenBatchDeps): LastSeenBatch {
  const flushMs = deps.flushMs ?? LAST_SEEN_BATCH.flushMs;
  const maxIds = deps.maxIds ?? LAST_SEEN_BATCH.maxIds;
  // tenant id → instance ids seen since the last flush
  let waiting = new Map<string, Set<string>>();
  let timer: NodeJS.Timeout | undefined;

  async function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = new Map();
    const now = deps.now();
    const writes: Promise<boolean>[] = [];
    for (const [tenantId, ids] of batch) {
      const held = [...ids].filter((instanceId) => deps.held({ tenantId, instanceId }));
      for (let i = 0; i < held.length; i += maxIds) {
        const chunk = held.slice(i, i + maxIds);
        writes.push(deps.write('last_seen', `${chunk.length} edges`, () => deps.touchMany(tenantId, chunk, now)));
      }
    }
    await Promise.all(writes);
  }

  return {
    add({ tenantId, instanceId }) {
      const ids = waiting.get(tenantId);
      if (ids) ids.add(instanceId);
      else waiting.set(tenantId, new Set([instanceId]));
      timer ??= setTimeout(() => void flush(), flushMs);
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      waiting = new Map();
    },
  };
}
