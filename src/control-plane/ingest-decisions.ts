import type { Logger } from '../observability';
import type { DecisionRecord } from '../relay-protocol';
import { DECISION_RETENTION, type DecisionRepository, type DecisionRetention } from './decision-repository';

/** Records received and not yet stored, across all edges of this node; past it new frames are dropped and counted. */
export const MAX_PENDING_DECISION_RECORDS = 20_000;
/** A tenant's records are trimmed to its retention after this many new ones, or this long after its last trim. */
export const DECISION_TRIM_EVERY = Object.freeze({ records: 1_000, ms: 60_000 });

/** Options of {@link createDecisionIngest}. */
export interface DecisionIngestOptions {
  readonly decisions: DecisionRepository;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly retention?: DecisionRetention;
  readonly maxPending?: number;
  /** Default {@link DECISION_TRIM_EVERY}. */
  readonly trimEvery?: { readonly records: number; readonly ms: number };
}

/** The relay's side of decision records: takes frames as they arrive and stores them in the background. */
export interface DecisionIngest {
  /** Queues one frame's records from a registered edge (tenant and instance from its connection). Never throws, never waits. */
  accept(key: { readonly tenantId: string; readonly instanceId: string }, records: readonly DecisionRecord[]): void;
  /** Resolves once everything accepted so far is stored (or failed). */
  idle(): Promise<void>;
  /** Counters, for metrics and tests. */
  stats(): { readonly stored: number; readonly dropped: number; readonly failed: number; readonly pending: number };
}

interface Batch {
  readonly tenantId: string;
  readonly instanceId: string;
  readonly records: readonly DecisionRecord[];
  readonly receivedAt: number;
}

/**
 * Stores decision records off the relay's socket handler: frames queue in memory (bounded by
 * `maxPending` records; beyond it a frame is dropped and counted, so a flood slows nothing
 * but itself), one writer stores them a batch per transaction, in arrival order, and trims a
 * tenant to its retention (docs/reference/limits.md) every {@link DECISION_TRIM_EVERY}. A
 * database that refuses a write loses that batch (logged, counted): records are a log, and
 * holding them would only move the bound.
 */
export function createDecisionIngest(options: DecisionIngestOptions): DecisionIngest {
  const now = options.now ?? Date.now;
  const retention = options.retention ?? DECISION_RETENTION;
  const maxPending = options.maxPending ?? MAX_PENDING_DECISION_RECORDS;
  const trimEvery = options.trimEvery ?? DECISION_TRIM_EVERY;
  const log = options.logger;
  const queue: Batch[] = [];
  let pending = 0;
  let stored = 0;
  let dropped = 0;
  let failed = 0;
  let writing: Promise<void> | undefined;
  const sinceTrim = new Map<string, { records: number; at: number }>();

  async function trimIfDue(tenantId: string, added: number): Promise<void> {
    const at = now();
    const state = sinceTrim.get(tenantId) ?? { records: 0, at };
    state.records += added;
    sinceTrim.set(tenantId, state);
    if (state.records < trimEvery.records && at - state.at < trimEvery.ms) return;
    sinceTrim.set(tenantId, { records: 0, at });
    await options.decisions.trim(tenantId, retention, at);
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.shift()!;
      try {
        await options.decisions.append(batch.tenantId, batch.instanceId, batch.records, batch.receivedAt);
        stored += batch.records.length;
      } catch (err) {
        failed += batch.records.length;
        log.warn({ err_name: (err as Error).name, err_code: (err as { code?: unknown }).code, tenant_id: batch.tenantId, records: batch.records.length }, 'decision records not stored');
      } finally {
        // Counted until stored: the bound covers the batch being written too.
        pending -= batch.records.length;
      }
      await trimIfDue(batch.tenantId, batch.records.length).catch((err: unknown) => {
        log.warn({ err_name: (err as Error).name, err_code: (err as { code?: unknown }).code, tenant_id: batch.tenantId }, 'decision records not trimmed; the next trim retries');
      });
    }
  }

  function write(): void {
    if (writing) return;
    writing = drain().finally(() => {
      writing = undefined;
      // Frames that came in while the last write settled.
      if (queue.length > 0) write();
    });
  }

  return {
    accept(key, records) {
      if (pending + records.length > maxPending) {
        dropped += records.length;
        return;
      }
      queue.push({ tenantId: key.tenantId, instanceId: key.instanceId, records, receivedAt: now() });
      pending += records.length;
      write();
    },
    async idle() {
      while (writing) await writing;
    },
    stats: () => ({ stored, dropped, failed, pending }),
  };
}
