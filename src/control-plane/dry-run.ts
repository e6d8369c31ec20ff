import { z } from 'zod';
import { AuthorizerUnavailableError, createLocalAuthorizer } from '../decision';
import type { DirectoryData } from '../directory';
import { compilePolicyImage, type PolicyImage } from '../policy';
import { INSTANCE_ID_PATTERN, type SampledDecision } from '../relay-protocol';

/** A dry-run body: the candidate folder's files, and the instance whose recorded decisions to replay. */
export const dryRunBodySchema = z
  .object({
    files: z.record(z.string(), z.string()),
    instance_id: z.string().regex(INSTANCE_ID_PATTERN, 'instance_id must be 1-64 of A-Z a-z 0-9 . _ : -'),
  })
  .strict();

type Outcome = SampledDecision['decision'];

/** One sampled request the candidate decides otherwise than the edge did. */
export interface DecisionFlip {
  readonly principal: string;
  readonly action: string;
  readonly resource: SampledDecision['resource'];
  readonly recorded: Outcome;
  readonly candidate: Outcome;
  /** The image and directory revision the edge decided with. */
  readonly policy_digest: string;
  readonly directory_revision: number;
}

/** What replaying a sample against a candidate found. */
export interface SampleReplay {
  readonly sampled: number;
  readonly unchanged: number;
  /** Requests the candidate could not decide (Cedar failed); an edge would answer 503, never allow. */
  readonly failed: number;
  readonly flips: { readonly allow_to_deny: number; readonly deny_to_allow: number };
  readonly changes: readonly DecisionFlip[];
}

/**
 * Decides every sampled request with the candidate image over `directory` (the central
 * directory now: the answer says which revision) through the edge's own decision path,
 * uncached, and lists the requests whose decision differs from the one the edge recorded.
 * A flip can therefore also come from a directory change since the edge decided; each
 * flip names the revision it was recorded at. The compiled candidate is released after.
 */
export function replaySample(candidate: PolicyImage, directory: DirectoryData, entries: readonly SampledDecision[]): SampleReplay {
  const compiled = compilePolicyImage(candidate);
  const authorizer = createLocalAuthorizer({ policy: () => compiled, directory: () => directory, cacheSize: 0 });
  const changes: DecisionFlip[] = [];
  const flips = { allow_to_deny: 0, deny_to_allow: 0 };
  let failed = 0;
  try {
    for (const entry of entries) {
      let allowed: boolean;
      try {
        const { principal, action, resource } = entry;
        allowed = authorizer.decideNow({ principal, action, resource, policyPath: `${candidate.name}.${action}` }).allowed;
      } catch (err) {
        if (!(err instanceof AuthorizerUnavailableError)) throw err;
        failed += 1;
        continue;
      }
      const outcome: Outcome = allowed ? 'allow' : 'deny';
      if (outcome === entry.decision) continue;
      if (allowed) flips.deny_to_allow += 1;
      else flips.allow_to_deny += 1;
      const { principal, action, resource, policy_digest, directory_revision } = entry;
      changes.push({ principal, action, resource, recorded: entry.decision, candidate: outcome, policy_digest, directory_revision });
    }
  } finally {
    compiled.release();
  }
  return { sampled: entries.length, unchanged: entries.length - failed - changes.length, failed, flips, changes };
}
