import { readFileSync } from 'node:fs';

/** One case of a WG decision file: a request and the `decision` (or `evaluations`) it must get. */
interface DecisionCase {
  readonly request: unknown;
  readonly expected: unknown;
}

/** A WG decision file: `evaluation` cases, and (from 1.0-02) `evaluations` batch cases. */
interface DecisionFile {
  readonly evaluation?: readonly DecisionCase[];
  readonly evaluations?: readonly DecisionCase[];
}

/** What running one file found: how many passed, of how many, and each failure described. */
export interface DecisionFileResult {
  readonly passed: number;
  readonly total: number;
  readonly failures: readonly string[];
}

/**
 * Runs a decision file of the OpenID AuthZEN Todo scenario against a PDP as the WG's runner
 * (`interop/authzen-todo-backend/test/runner.ts`) does — each request to
 * `/access/v1/evaluation` or `/access/v1/evaluations`, the answer's `decision` or
 * `evaluations` compared with `expected` as JSON text — and more strictly: the status must
 * be 200 too (the WG runner reads a 400's missing decision as `false`).
 */
export async function runDecisionFile(file: string, baseUrl: string): Promise<DecisionFileResult> {
  const cases = JSON.parse(readFileSync(file, 'utf8')) as DecisionFile;
  const failures: string[] = [];
  let passed = 0;
  let total = 0;
  for (const endpoint of ['evaluation', 'evaluations'] as const) {
    for (const { request, expected } of cases[endpoint] ?? []) {
      total += 1;
      const res = await fetch(`${baseUrl}/access/v1/${endpoint}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const body = (await res.json()) as { decision?: unknown; evaluations?: unknown };
      const answer = endpoint === 'evaluation' ? body.decision : body.evaluations;
      if (res.status === 200 && JSON.stringify(answer) === JSON.stringify(expected)) passed += 1;
      else failures.push(`${endpoint} ${JSON.stringify(request)}: ${res.status} ${JSON.stringify(body)}, expected ${JSON.stringify(expected)}`);
    }
  }
  return { passed, total, failures };
}
