import type { LocalDecision } from '../../../src/decision';
import type { AuthorizationRequest } from '../../../src/authorizer';
import { msSince, summarize, type LatencySummary } from './stats';

/** What is timed: the call an app's middleware makes (`authorizeNow`, in-process), and the cache counters behind it. */
export interface TimedAuthorizer {
  authorizeNow(request: AuthorizationRequest): LocalDecision;
  stats(): { readonly hits: number; readonly misses: number };
}

/** Cold and cached latency of the local authorizer, measured in this process. */
export interface DecisionLatency {
  readonly cold: LatencySummary;
  readonly cached: LatencySummary;
  /** Cache hits counted during the cold run (must be 0) and misses during the cached one (must be 0). */
  readonly coldHits: number;
  readonly cachedMisses: number;
}

/**
 * Times `iterations` synchronous decisions of `principal` doing `action` on a resource, each
 * one separately with `process.hrtime.bigint()`. Cold: every decision names a resource id and
 * a resource property never asked before, so each misses the decision cache and runs Cedar (checked with the
 * authorizer's own counters and each decision's `cached` flag). Cached: the same
 * question again and again after one miss.
 */
export async function measureDecisionLatency(
  authorizer: TimedAuthorizer,
  options: { principal: string; action: string; iterations: number },
): Promise<DecisionLatency> {
  // A cold question carries a new resource property too: the RBAC policy decides by resource
  // type, so a new resource id alone is answered from the cache, and so is a context no action
  // declares; a resource's properties stay in the key (docs/architecture.md, Flow 1).
  const ask = (id: string, cold = false) =>
    authorizer.authorizeNow({
      principal: options.principal,
      action: options.action,
      resource: cold ? { type: 'Resource', id, attributes: { question: id } } : { type: 'Resource', id },
      policyPath: `rbac.${options.action}`,
    });
  // Warm-up: JIT, the entity slices, Cedar's first calls. Ids not reused below.
  for (let i = 0; i < 2_000; i += 1) ask(`warm-${i}`, true);

  const cold: number[] = [];
  const before = authorizer.stats();
  for (let i = 0; i < options.iterations; i += 1) {
    const started = process.hrtime.bigint();
    const decision = ask(`cold-${i}`, true);
    cold.push(msSince(started));
    if (decision.cached || !decision.allowed) throw new Error('a cold decision was cached or not allowed');
  }
  const coldHits = authorizer.stats().hits - before.hits;

  ask('mega-seed');
  const cached: number[] = [];
  const beforeCached = authorizer.stats();
  for (let i = 0; i < options.iterations; i += 1) {
    const started = process.hrtime.bigint();
    const decision = ask('mega-seed');
    cached.push(msSince(started));
    if (!decision.cached) throw new Error('a repeated decision missed the cache');
  }
  const cachedMisses = authorizer.stats().misses - beforeCached.misses;
  return { cold: summarize(cold), cached: summarize(cached), coldHits, cachedMisses };
}
