import { z } from 'zod';

/**
 * Freshness on request: a caller that just changed the directory or pushed an image can
 * require the state its decision is made from — at least directory revision N, exactly
 * image digest D. Sent as body fields or as the headers below (a header wins).
 */
export const freshnessFields = {
  min_directory_revision: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  min_policy_digest: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'min_policy_digest must be sha256:<64 hex digits>').optional(),
};

/** Header forms of the two freshness fields, and the headers every decision response carries. */
export const FRESHNESS_HEADERS = {
  minDirectoryRevision: 'outpost-min-directory-revision',
  minPolicyDigest: 'outpost-min-policy-digest',
  directoryRevision: 'outpost-directory-revision',
  policyDigest: 'outpost-policy-digest',
} as const;
