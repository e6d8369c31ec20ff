import type { CheckParseAnswer, PolicySet, Schema } from '@cedar-policy/cedar-wasm/nodejs';
import { markEngineUnhealthy, onEngineReset, withCedar, type CedarBindings } from './cedar-engine';

/**
 * Cedar keeps pre-parsed policy sets and schemas in wasm memory under an id, and has no
 * call to free one. Ids here are image digests (equal digest, equal content), counted
 * by holder: the first holder parses, the last one to release overwrites both entries
 * with empty ones, so a swapped-out image keeps only its id (tens of bytes) in memory.
 * The inputs are kept too, so a fresh engine instance can parse every held image again.
 */
interface Held {
  count: number;
  readonly policies: PolicySet;
  readonly schema: Schema;
}
const held = new Map<string, Held>();

function preparse(cedar: CedarBindings, id: string, policies: PolicySet, schema: Schema): string[] {
  return [cedar.preparseSchema(id, schema), cedar.preparsePolicySet(id, policies)].flatMap((r: CheckParseAnswer) =>
    r.type === 'failure' ? r.errors.map((e) => e.message) : [],
  );
}

// A fresh instance starts empty: parse every image still held into it, or the edge
// would answer from ids Cedar no longer knows. Any failure makes the engine unhealthy.
onEngineReset((cedar) => {
  for (const [id, { policies, schema }] of held) {
    if (preparse(cedar, id, policies, schema).length > 0) markEngineUnhealthy();
  }
});

/** Pre-parses (once per digest) and returns the id to evaluate with; Cedar errors as text. */
export function acquirePreparsed(digest: string, policies: PolicySet, schema: Schema): string | string[] {
  const id = `outpost:${digest}`;
  const entry = held.get(id);
  if (entry === undefined) {
    const failures = withCedar('preparse', (cedar) => preparse(cedar, id, policies, schema));
    if (failures.length > 0) return failures;
    held.set(id, { count: 1, policies, schema });
  } else {
    entry.count += 1;
  }
  return id;
}

/** Drops one holder; the last one empties the cached entries. */
export function releasePreparsed(id: string): void {
  const entry = held.get(id);
  if (entry === undefined) return;
  if (entry.count > 1) {
    entry.count -= 1;
    return;
  }
  held.delete(id);
  withCedar('release', (cedar) => {
    cedar.preparsePolicySet(id, { staticPolicies: {} });
    // The empty schema as JSON: Cedar builds it in less than half the time of the empty text.
    cedar.preparseSchema(id, {});
  });
}

/** Number of images currently pre-parsed (for metrics and tests). */
export function preparsedCount(): number {
  return held.size;
}
