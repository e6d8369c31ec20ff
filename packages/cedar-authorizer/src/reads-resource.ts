import { withCedar } from './cedar-engine';

/**
 * True when a policy (Cedar's JSON form, the "EST") can see more of the resource than its
 * type: a resource scope other than unconstrained or `is T` (`==`, `in`, `is T in …`), or
 * the variable `resource` anywhere in a condition. Anything it does not recognise counts
 * as reading the resource: the answer may only ever err towards asking Cedar.
 */
export function policyReadsResource(policy: unknown): boolean {
  if (typeof policy !== 'object' || policy === null) return true;
  const { resource, conditions } = policy as { resource?: unknown; conditions?: unknown };
  if (typeof resource !== 'object' || resource === null) return true;
  const scope = resource as { op?: unknown; in?: unknown };
  const byTypeOnly = scope.op === 'All' || (scope.op === 'is' && scope.in === undefined);
  return !byTypeOnly || mentionsResource(conditions ?? []);
}

/** Whether `{"Var": "resource"}` occurs anywhere in `node` (a condition's expression). */
function mentionsResource(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(mentionsResource);
  if (typeof node !== 'object' || node === null) return false;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'Var' && value === 'resource') return true;
    if (mentionsResource(value)) return true;
  }
  return false;
}

/**
 * True when some policy of the set reads the resource beyond its type
 * ({@link policyReadsResource}); false means every decision is the same for all resources
 * of one type. A policy Cedar cannot turn into JSON, or a fault in Cedar, counts as reading it.
 */
export function policiesReadResource(policyTexts: Iterable<string>): boolean {
  try {
    for (const text of policyTexts) {
      const answer = withCedar('policy to JSON', (cedar) => cedar.policyToJson(text));
      if (answer.type !== 'success' || policyReadsResource(answer.json)) return true;
    }
    return false;
  } catch {
    return true;
  }
}
