import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from '../observability';
import type { DecisionRecord } from '../relay-protocol';
import { DECISION_RETENTION, type DecisionRepository, type DecisionRetention } from './decision-repository';

/** Records received and not yet stored, across all edges of this node; past it new frames are dropped and counted. */
export const MAX_PENDING_DECISION_RECORDS = 20_000;
/** A tenant's records are trimmed to its retention after this many new ones, or this long after its last trim. */
export const DECISION_TRIM_EVERY = Object.freeze({ records: 1_000, ms: 60_000 });

/**
 * What one tenant's edges may hand this node, whatever their number (docs/reference/limits.md):
 * a sustained rate and a burst, in records and in bytes (the records' JSON), and at most
 * `maxPending` of them waiting to be stored. Past any of them a frame is shed and counted for
 * that tenant alone, so one tenant's flood costs the others neither queue room nor writer time.
 */
export const DECISION_BUDGET = Object.freeze({
  recordsPerSecond: 500,
  burstRecords: 5_000,
  bytesPerSecond: 1024 * 1024,
  burstBytes: 8 * 1024 * 1024,
  maxPending: 5_000,
});

/** The per-tenant bounds {@link createDecisionIngest} enforces (default {@link DECISION_BUDGET}). */
export type DecisionBudget = { readonly [K in keyof typeof DECISION_BUDGET]: number };

/** Options of {@link createDecisionIngest}. */
export interface DecisionIngestOptions {
  readonly decisions: DecisionRepository;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly retention?: DecisionRetention;
  readonly maxPending?: number;
  /** Default {@link DECISION_TRIM_EVERY}. */
  readonly trimEvery?: { readonly records: number; readonly ms: number };
  /** Default {@link DECISION_BUDGET}. */
  readonly budget?: DecisionBudget;
}

/** What was done with the records of one tenant, or of all of them. */
export interface IngestCounts {
  readonly stored: number;
  /** Shed on arrival: over the node's pending bound, or over the tenant's budget. */
  readonly dropped: number;
  readonly failed: number;
  readonly pending: number;
}

/** The relay's side of decision records: takes frames as they arrive and stores them in the background. */
export interface DecisionIngest {
  /** Queues one frame's records from a registered edge (tenant and instance from its connection). Never throws, never waits. */
  accept(key: { readonly tenantId: string; readonly instanceId: string }, records: readonly DecisionRecord[]): void;
  /** Resolves once everything accepted so far is stored (or failed). */
  idle(): Promise<void>;
  /** Counters for the node, or for one tenant, for metrics and tests. */
  stats(tenantId?: string): IngestCounts;
}

interface Batch {
  readonly tenantId: string;
  readonly instanceId: string;
  readonly records: readonly DecisionRecord[];
  readonly receivedAt: number;
}

/** A tenant's state: its queue, its budget's buckets (refilled by time) and its counters. */
interface TenantIngest {
  readonly queue: Batch[];
  records: number;
  bytes: number;
  refilledAt: number;
  counts: { stored: number; dropped: number; failed: number; pending: number };
}

/**
 * Stores decision records off the relay's socket handler: frames queue in memory per tenant
 * (each tenant within its {@link DECISION_BUDGET}, the node within `maxPending` records; past
 * either a frame is dropped and counted, so a flood slows nothing but itself), and one writer
 * stores them a batch per transaction, taking the tenants in turn and giving the event loop back
 * between batches, so requests of every tenant are served while a backlog is written. A tenant
 * is trimmed to its retention (docs/reference/limits.md) every {@link DECISION_TRIM_EVERY}. A
 * database that refuses a write loses that batch (logged, counted): records are a log, and
 * holding them would only move the bound.
 */
export function createDecisionIngest(options: DecisionIngestOptions): DecisionIngest {
  const now = options.now ?? Date.now;
  const retention = options.retention ?? DECISION_RETENTION;
  const maxPending = options.maxPending ?? MAX_PENDING_DECISION_RECORDS;
  const trimEvery = options.trimEvery ?? DECISION_TRIM_EVERY;
  const budget = options.budget ?? DECISION_BUDGET;
  const log = options.logger;
  const tenants = new Map<string, TenantIngest>();
  /** Tenants with batches waiting, in the order the writer serves them. */
  const turn: string[] = [];
  const totals = { stored: 0, dropped: 0, failed: 0, pending: 0 };
  let writing: Promise<void> | undefined;
  const sinceTrim = new Map<string, { records: number; at: number }>();

  function tenant(tenantId: string): TenantIngest {
    let state = tenants.get(tenantId);
    if (!state) {
      state = { queue: [], records: budget.burstRecords, bytes: budget.burstBytes, refilledAt: now(), counts: { stored: 0, dropped: 0, failed: 0, pending: 0 } };
      tenants.set(tenantId, state);
    }
    return state;
  }

  /** Takes `records` and `bytes` from the tenant's buckets, after refilling them for the time passed; false when either is short. */
  function withinBudget(state: TenantIngest, records: number, bytes: number): boolean {
    const at = now();
    const seconds = Math.max(0, at - state.refilledAt) / 1000;
    state.refilledAt = at;
    state.records = Math.min(budget.burstRecords, state.records + seconds * budget.recordsPerSecond);
    state.bytes = Math.min(budget.burstBytes, state.bytes + seconds * budget.bytesPerSecond);
    if (records > state.records || bytes > state.bytes) return false;
    state.records -= records;
    state.bytes -= bytes;
    return true;
  }

  async function trimIfDue(tenantId: string, added: number): Promise<void> {
    const at = now();
    const state = sinceTrim.get(tenantId) ?? { records: 0, at };
    state.records += added;
    sinceTrim.set(tenantId, state);
    if (state.records < trimEvery.records && at - state.at < trimEvery.ms) return;
    sinceTrim.set(tenantId, { records: 0, at });
    await options.decisions.trim(tenantId, retention, at);
  }

  async function store(state: TenantIngest, batch: Batch): Promise<void> {
    const n = batch.records.length;
    try {
      await options.decisions.append(batch.tenantId, batch.instanceId, batch.records, batch.receivedAt);
      state.counts.stored += n;
      totals.stored += n;
    } catch (err) {
      state.counts.failed += n;
      totals.failed += n;
      log.warn({ err_name: (err as Error).name, err_code: (err as { code?: unknown }).code, tenant_id: batch.tenantId, records: n }, 'decision records not stored');
    } finally {
      // Counted until stored: the bounds cover the batch being written too.
      state.counts.pending -= n;
      totals.pending -= n;
    }
    await trimIfDue(batch.tenantId, n).catch((err: unknown) => {
      log.warn({ err_name: (err as Error).name, err_code: (err as { code?: unknown }).code, tenant_id: batch.tenantId }, 'decision records not trimmed; the next trim retries');
    });
  }

  async function drain(): Promise<void> {
    while (turn.length > 0) {
      // The next tenant's oldest batch; the tenant goes to the back of the line if it has more.
      const tenantId = turn.shift()!;
      const state = tenants.get(tenantId)!;
      const batch = state.queue.shift()!;
      if (state.queue.length > 0) turn.push(tenantId);
      await store(state, batch);
      // SQLite writes synchronously: without this a backlog would hold the event loop until it
      // is written, and every tenant's requests (and /healthz) would wait behind it.
      await nextTurn();
    }
  }

  function write(): void {
    if (writing) return;
    writing = drain().finally(() => {
      writing = undefined;
      // Frames that came in while the last write settled.
      if (turn.length > 0) write();
    });
  }

  return {
    accept(key, records) {
      const state = tenant(key.tenantId);
      const n = records.length;
      const fits =
        totals.pending + n <= maxPending && state.counts.pending + n <= budget.maxPending && withinBudget(state, n, Buffer.byteLength(JSON.stringify(records)));
      if (!fits) {
        state.counts.dropped += n;
        totals.dropped += n;
        return;
      }
      if (state.queue.length === 0) turn.push(key.tenantId);
      state.queue.push({ tenantId: key.tenantId, instanceId: key.instanceId, records, receivedAt: now() });
      state.counts.pending += n;
      totals.pending += n;
      write();
    },
    async idle() {
      while (writing) await writing;
    },
    stats(tenantId) {
      if (tenantId === undefined) return { ...totals };
      return { ...(tenants.get(tenantId)?.counts ?? { stored: 0, dropped: 0, failed: 0, pending: 0 }) };
    },
  };
}
