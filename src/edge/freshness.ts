import { HttpError, statusOf } from '../http';
import type { EdgeState } from './edge-state';
import { withinMs, type Timers } from './timers';

/**
 * What a caller may require of the state a decision is made from: at least this directory
 * revision, and exactly this policy image (digests are not ordered, so "at least" means
 * "this one").
 */
export interface FreshnessDemand {
  readonly minDirectoryRevision?: number | undefined;
  readonly minPolicyDigest?: string | undefined;
}

/** The state is still behind a demand after the edge tried to catch up: 409 (synced, still behind) or 503 (could not sync in time). */
export class NotFreshError extends HttpError {
  constructor(
    code: 'not_fresh' | 'freshness_unavailable',
    message: string,
    readonly policyDigest: string | null,
    readonly directoryRevision: number,
  ) {
    super(statusOf(code), code, message, code === 'freshness_unavailable' ? { 'retry-after': '1' } : {});
  }

  override toBody(): Record<string, unknown> {
    return { ...super.toBody(), policy_digest: this.policyDigest, directory_revision: this.directoryRevision };
  }
}

/** Brings the edge up to a caller's demand before it decides. */
export interface Freshness {
  /** Resolves once the state meets `demand`; throws {@link NotFreshError} otherwise. */
  ensure(demand: FreshnessDemand): Promise<void>;
}

/**
 * Least time between two syncs this module starts for one job: a demand that arrives
 * sooner waits for the next slot (shared by every demand arriving meanwhile), so a flood
 * of demands costs the control plane at most 10 syncs a second per job.
 */
export const FRESHNESS_SYNC_GAP_MS = 100;

type Job = 'discovery' | 'directory';

/**
 * Freshness on request: when a decision asks for state the edge does not have yet, the
 * edge runs the sync that would bring it (the same coalescing jobs relay commands use)
 * and waits at most `waitMs`. It never decides on older state than asked for: still
 * behind after a completed sync is a 409 (the control plane has nothing newer), a sync
 * that failed or took too long a 503; both say what the edge has.
 */
export function createFreshness(deps: {
  state: EdgeState;
  sync: Readonly<Record<Job, () => Promise<unknown>>>;
  waitMs: number;
  timers: Timers;
  now: () => number;
  /** Called after each sync this module started (the edge reports its status to the relay). */
  onSynced: () => void;
}): Freshness {
  const { state, timers, now } = deps;
  const lastStart = new Map<Job, number>();
  const next = new Map<Job, Promise<unknown>>();

  function lagging(demand: FreshnessDemand): Job[] {
    const jobs: Job[] = [];
    if (demand.minPolicyDigest !== undefined && state.policy?.image.digest !== demand.minPolicyDigest) jobs.push('discovery');
    if (demand.minDirectoryRevision !== undefined && (state.directory?.revision ?? 0) < demand.minDirectoryRevision) jobs.push('directory');
    return jobs;
  }

  /** A sync of `job` that starts after this call: at once, or in the next slot. */
  function syncAfterNow(job: Job): Promise<unknown> {
    const queued = next.get(job);
    if (queued) return queued;
    const start = () => {
      next.delete(job);
      lastStart.set(job, now());
      return deps.sync[job]().finally(deps.onSynced);
    };
    const wait = (lastStart.get(job) ?? -Infinity) + FRESHNESS_SYNC_GAP_MS - now();
    if (wait <= 0) return start();
    const slot = new Promise<void>((resolve) => timers.setTimeout(resolve, wait)).then(start);
    next.set(job, slot);
    return slot;
  }

  return {
    async ensure(demand) {
      const jobs = lagging(demand);
      if (jobs.length === 0) return;
      const outcome = await withinMs(Promise.allSettled(jobs.map(syncAfterNow)), deps.waitMs, timers);
      const still = lagging(demand);
      if (still.length === 0) return;
      const digest = state.policy?.image.digest ?? null;
      const revision = state.directory?.revision ?? 0;
      const has = `it has policy ${digest ?? 'none'} and directory revision ${revision}`;
      if (outcome === 'timeout') throw new NotFreshError('freshness_unavailable', `the edge could not catch up within ${deps.waitMs} ms; ${has}`, digest, revision);
      if (outcome.some((o) => o.status === 'rejected')) throw new NotFreshError('freshness_unavailable', `the edge could not sync with the control plane; ${has}`, digest, revision);
      throw new NotFreshError('not_fresh', `the control plane has nothing newer than what the edge holds; ${has}`, digest, revision);
    },
  };
}
