import type { DirectoryData } from './directory-data';
import { compilePolicyImage, validatePolicyImage } from './compile-policy-image';
import type { CompiledPolicy } from './compiled-policy';
import type { PolicyImage } from './policy-image';
import { parsePolicyTests, type PolicyTestCase } from './policy-tests';
import { AuthorizerUnavailableError } from '@outpost/express-authz';
import { createLocalAuthorizer } from './local-authorizer';

/** The outcome of one test case: `error` when the decision path could not answer. */
export interface PolicyTestResult {
  /** `tests/<file>.json` the case came from. */
  readonly file: string;
  readonly name: string;
  readonly expected: 'allow' | 'deny';
  readonly actual: 'allow' | 'deny' | 'error';
  readonly passed: boolean;
  /** Why the decision path failed (only for `actual: 'error'`). */
  readonly error?: string;
}

/** At most this many failing cases are spelled out in a {@link PolicyTestsFailedError}'s message. */
const MAX_DESCRIBED_FAILURES = 5;

/** `tests/rbac.json "viewer may not PUT": expected deny, got allow` — one line per failing case. */
export function describeTestFailure(result: PolicyTestResult): string {
  const got = result.actual === 'error' ? `an error (${result.error ?? 'unknown'})` : result.actual;
  return `${result.file} "${result.name}": expected ${result.expected}, got ${got}`;
}

/**
 * An image's own tests failed: it must not be stored (control plane) or activated (edge).
 * `failures` has one line per failing case; the message names the first few.
 */
export class PolicyTestsFailedError extends Error {
  readonly failures: readonly string[];

  constructor(imageName: string, results: readonly PolicyTestResult[]) {
    const failures = results.filter((r) => !r.passed).map(describeTestFailure);
    const shown = failures.slice(0, MAX_DESCRIBED_FAILURES);
    const more = failures.length > shown.length ? `; and ${failures.length - shown.length} more` : '';
    super(`${failures.length} of ${results.length} tests of policy image "${imageName}" failed: ${shown.join('; ')}${more}`);
    this.name = new.target.name;
    this.failures = failures;
  }
}

function runCase(policy: CompiledPolicy, file: string, testCase: PolicyTestCase): PolicyTestResult {
  const directory: DirectoryData = { revision: 0, ...testCase.directory };
  // A fresh authorizer per case, without a cache: every case is decided from its own fixture.
  // Deciding is synchronous (decideNow), so start-up checks can run the tests too.
  const authorizer = createLocalAuthorizer({ policy: () => policy, directory: () => directory, cacheSize: 0 });
  const { principal, action, resource } = testCase.request;
  const base = { file, name: testCase.name, expected: testCase.decision };
  try {
    const actual = authorizer.decideNow({ principal, action, resource, policyPath: `${policy.name}.${action}` }).allowed ? 'allow' : 'deny';
    return { ...base, actual, passed: actual === testCase.decision };
  } catch (err) {
    if (!(err instanceof AuthorizerUnavailableError)) throw err;
    return { ...base, actual: 'error', passed: false, error: err.detail ?? err.message };
  }
}

/**
 * Runs every test case an image carries (`tests/*.json`) through the real decision path —
 * the local authorizer over `policy` (the image, compiled) and each case's directory
 * fixture — and returns one result per case, in file and case order. An image without
 * tests yields no results.
 */
export function runPolicyTests(image: PolicyImage, policy: CompiledPolicy): PolicyTestResult[] {
  const results: PolicyTestResult[] = [];
  for (const suite of parsePolicyTests(image.files)) {
    for (const testCase of suite.cases) results.push(runCase(policy, suite.file, testCase));
  }
  return results;
}

/** Runs an image's tests ({@link runPolicyTests}) and throws {@link PolicyTestsFailedError} if any fails. */
export function assertPolicyTestsPass(image: PolicyImage, policy: CompiledPolicy): void {
  const results = runPolicyTests(image, policy);
  if (results.some((r) => !r.passed)) throw new PolicyTestsFailedError(image.name, results);
}

/**
 * Validates an image against its own Cedar schema and, when it carries tests, compiles it
 * and runs them through the real decision path (the compiled copy is released at once):
 * what the registry checks on a push and start-up checks on seed policies. Throws the
 * policy layer's errors or {@link PolicyTestsFailedError}.
 */
export function checkPolicyImage(image: PolicyImage): void {
  if (parsePolicyTests(image.files).length === 0) {
    validatePolicyImage(image);
    return;
  }
  const compiled = compilePolicyImage(image);
  try {
    assertPolicyTestsPass(image, compiled);
  } finally {
    compiled.release();
  }
}
