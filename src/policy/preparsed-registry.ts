import { preparsePolicySet, preparseSchema, type CheckParseAnswer, type PolicySet } from '@cedar-policy/cedar-wasm/nodejs';

/**
 * Cedar keeps pre-parsed policy sets and schemas in wasm memory under an id, and has no
 * call to free one. Ids here are image digests (equal digest, equal content), counted
 * by holder: the first holder parses, the last one to release overwrites both entries
 * with empty ones, so a swapped-out image keeps only its id (tens of bytes) in memory.
 */
const holders = new Map<string, number>();

/** Pre-parses (once per digest) and returns the id to evaluate with; Cedar errors as text. */
export function acquirePreparsed(digest: string, policies: PolicySet, schema: string): string | string[] {
  const id = `outpost:${digest}`;
  const count = holders.get(id) ?? 0;
  if (count === 0) {
    const failures = [preparseSchema(id, schema), preparsePolicySet(id, policies)].flatMap((r: CheckParseAnswer) =>
      r.type === 'failure' ? r.errors.map((e) => e.message) : [],
    );
    if (failures.length > 0) return failures;
  }
  holders.set(id, count + 1);
  return id;
}

/** Drops one holder; the last one empties the cached entries. */
export function releasePreparsed(id: string): void {
  const count = holders.get(id) ?? 0;
  if (count > 1) {
    holders.set(id, count - 1);
    return;
  }
  holders.delete(id);
  preparsePolicySet(id, { staticPolicies: {} });
  preparseSchema(id, '');
}

/** Number of images currently pre-parsed (for metrics and tests). */
export function preparsedCount(): number {
  return holders.size;
}
