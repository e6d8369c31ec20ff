import { z } from 'zod';
import { AuthorizerUnavailableError, createLocalAuthorizer } from '../decision';
import type { DirectoryData } from '../directory';
import { compilePolicyImage, type PolicyImage } from '../policy';
import { INSTANCE_ID_PATTERN, sampledDecisionSchema, type SampledDecision } from '../relay-protocol';

/** A dry-run body: the candidate folder's files, and the instance whose recorded decisions to replay. */
export const dryRunBodySchema = z
  .object({
    files: z.record(z.string(), z.string()),
    instance_id: z.string().regex(INSTANCE_ID_PATTERN, 'instance_id must be 1-64 of A-Z a-z 0-9 . _ : -'),
  })
  .strict();

const outcome = z.enum(['allow', 'deny']);

/** A flip's principal by name and e-mail, from the tenant's directory now; null when it has none for the id. */
const principalNames = { principal_name: z.string().nullable(), principal_email: z.string().nullable() };
/** A dry run's answer: the recorded decisions that would flip under the candidate, counted and listed. */
export const dryRunAnswerSchema = z.strictObject({
  name: z.string(),
  instance_id: z.string(),
  candidate_digest: z.string(),
  edge_policy_digest: z.string().nullable(),
  directory_revision: z.number().int().describe('the central directory revision the candidate decided with'),
  sampled: z.number().int(),
  unchanged: z.number().int(),
  failed: z.number().int(),
  flips: z.strictObject({ allow_to_deny: z.number().int(), deny_to_allow: z.number().int() }),
  changes: z.array(
    z.strictObject({
      principal: z.string(),
      ...principalNames,
      action: z.string(),
      resource: sampledDecisionSchema.shape.resource,
      recorded: outcome,
      candidate: outcome,
      policy_digest: z.string(),
      directory_revision: z.number().int(),
    }),
  ),
  policy_only: z
    .strictObject({
      failed: z.number().int(),
      flips: z.strictObject({ allow_to_deny: z.number().int(), deny_to_allow: z.number().int() }),
      changes: z.array(
        z.strictObject({ principal: z.string(), ...principalNames, action: z.string(), resource: sampledDecisionSchema.shape.resource, current: outcome, candidate: outcome }),
      ),
    })
    .nullable()
    .describe("the candidate against the edge's current image on the same directory: the flips the policy change alone causes; null when the registry does not hold that image"),
});

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

/**
 * One sampled request the candidate decides otherwise than the edge's current image, both
 * over the same directory: a flip the policy change alone causes.
 */
export interface PolicyFlip {
  readonly principal: string;
  readonly action: string;
  readonly resource: SampledDecision['resource'];
  readonly current: Outcome;
  readonly candidate: Outcome;
}

/** The candidate against the edge's current image, on the same directory and sample. */
export interface PolicyOnlyReplay {
  /** Requests either image could not decide; they are in neither list. */
  readonly failed: number;
  readonly flips: { readonly allow_to_deny: number; readonly deny_to_allow: number };
  readonly changes: readonly PolicyFlip[];
}

/** What replaying a sample against a candidate found. */
export interface SampleReplay {
  readonly sampled: number;
  readonly unchanged: number;
  /** Requests the candidate could not decide (Cedar failed); an edge would answer 503, never allow. */
  readonly failed: number;
  readonly flips: { readonly allow_to_deny: number; readonly deny_to_allow: number };
  readonly changes: readonly DecisionFlip[];
  /** Null when the edge's current image is unknown to the registry (or it has none). */
  readonly policy_only: PolicyOnlyReplay | null;
}

/** Decides sampled requests with one image over one directory, uncached; undefined when Cedar failed. */
interface SampleDecider {
  decide(entry: SampledDecision): Outcome | undefined;
  release(): void;
}

/** Compiles `image` once for a whole replay; the caller releases it. */
function sampleDecider(image: PolicyImage, directory: DirectoryData): SampleDecider {
  const compiled = compilePolicyImage(image);
  const authorizer = createLocalAuthorizer({ policy: () => compiled, directory: () => directory, cacheSize: 0 });
  return {
    decide({ principal, action, resource }) {
      try {
        return authorizer.decideNow({ principal, action, resource, policyPath: `${image.name}.${action}` }).allowed ? 'allow' : 'deny';
      } catch (err) {
        if (!(err instanceof AuthorizerUnavailableError)) throw err;
        return undefined;
      }
    },
    release: () => compiled.release(),
  };
}

/** Counts a flip to `after` (from the other outcome). */
function countFlip(flips: { allow_to_deny: number; deny_to_allow: number }, after: Outcome): void {
  if (after === 'allow') flips.deny_to_allow += 1;
  else flips.allow_to_deny += 1;
}

/**
 * Decides every sampled request with the candidate image over `directory` (the central
 * directory now: the answer says which revision) through the edge's own decision path,
 * uncached, and lists the requests whose decision differs from the one the edge recorded.
 * Such a flip can also come from what changed since the edge decided (the directory, or
 * the edge's image); each names the revision and image it was recorded with. With the
 * edge's `current` image the same requests are decided with it too, over the same
 * directory, and `policy_only` lists where the candidate differs from it: the flips the
 * policy change alone causes. The compiled images are released after.
 */
export function replaySample(
  candidate: PolicyImage,
  directory: DirectoryData,
  entries: readonly SampledDecision[],
  current?: PolicyImage,
): SampleReplay {
  const byCandidate = sampleDecider(candidate, directory);
  const byCurrent = current === undefined ? undefined : sampleDecider(current, directory);
  const changes: DecisionFlip[] = [];
  const flips = { allow_to_deny: 0, deny_to_allow: 0 };
  const policyChanges: PolicyFlip[] = [];
  const policyFlips = { allow_to_deny: 0, deny_to_allow: 0 };
  let failed = 0;
  let policyFailed = 0;
  try {
    for (const entry of entries) {
      const { principal, action, resource, policy_digest, directory_revision } = entry;
      const outcome = byCandidate.decide(entry);
      const now = byCurrent?.decide(entry);
      if (outcome === undefined || now === undefined) policyFailed += 1;
      else if (outcome !== now) {
        countFlip(policyFlips, outcome);
        policyChanges.push({ principal, action, resource, current: now, candidate: outcome });
      }
      if (outcome === undefined) {
        failed += 1;
        continue;
      }
      if (outcome === entry.decision) continue;
      countFlip(flips, outcome);
      changes.push({ principal, action, resource, recorded: entry.decision, candidate: outcome, policy_digest, directory_revision });
    }
  } finally {
    byCandidate.release();
    byCurrent?.release();
  }
  return {
    sampled: entries.length,
    unchanged: entries.length - failed - changes.length,
    failed,
    flips,
    changes,
    policy_only: byCurrent === undefined ? null : { failed: policyFailed, flips: policyFlips, changes: policyChanges },
  };
}
