/**
 * Reasons on request: a caller that sends `Outpost-Explain: reasons` on a decision endpoint
 * (the Topaz-shaped `is`, AuthZEN `evaluation` and `evaluations`) gets, beside each decision,
 * the policies that determined it — `<file>:<line>` with the policy's first comment line, or
 * "no policy permits" (docs/reference/api.md, "Reasons"). Without the header the answers are
 * exactly the protocols' shapes. The decision log line carries the policy ids either way.
 */
export const EXPLAIN_HEADER = 'outpost-explain';

/** The one value {@link EXPLAIN_HEADER} takes. */
export const EXPLAIN_REASONS = 'reasons';
