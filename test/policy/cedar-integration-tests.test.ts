/**
 * Cedar's own hand-written integration tests (cedar-policy/cedar-integration-tests, Apache-2.0,
 * pinned at commit f161e9f858a05134aeb74d5e13c91d85bc8c320d, its v4.10.0 tag: the newest for Cedar
 * 4.x, whose cedar-wasm 4.13 Outpost runs) through Outpost's policy path: compilePolicyImage on
 * each test's schema and policies, isAuthorized per request, every decision, reason and error
 * compared with the expected one. How a test maps onto that path: scripts/lib/cedar-conformance.ts.
 *
 * The suite is third-party test data, vendored with its license and NOTICE under
 * test/fixtures/cedar-integration-tests/ (its README names the commit); $CEDAR_INTEGRATION_TESTS
 * points at another copy. Without it this file fails, naming where it looked: every one of its 74
 * requests must run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { handWrittenTests, runCedarTest, type SuiteReader } from '../../scripts/lib/cedar-conformance';

const REQUESTS_IN_SUITE = 74;
const TESTS_IN_SUITE = 22;

const repo = resolve(__dirname, '..', '..');
const places = [process.env.CEDAR_INTEGRATION_TESTS, join(repo, 'test', 'fixtures', 'cedar-integration-tests')].filter(
  (p): p is string => p !== undefined && p !== '',
);
const root = places.find((p) => existsSync(join(p, 'tests')));

const read: SuiteReader = (path) => {
  const file = join(root as string, path);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};
const tests = root ? handWrittenTests(readdirSync(join(root, 'tests')).flatMap((group) => readdirSync(join(root, 'tests', group)).map((f) => `tests/${group}/${f}`))) : [];

describe("Cedar's hand-written integration tests through Outpost's policy path", () => {
  it(`are there: ${TESTS_IN_SUITE} test files, ${REQUESTS_IN_SUITE} requests`, () => {
    if (!root) throw new Error(`cedar-integration-tests not found in any of: ${places.join(', ')} (a copy of the repository at commit f161e9f, with tests/ and sample-data/)`);
    expect(tests).toHaveLength(TESTS_IN_SUITE);
    const requests = tests.reduce((n, t) => n + (JSON.parse(read(t) as string) as { requests: unknown[] }).requests.length, 0);
    expect(requests).toBe(REQUESTS_IN_SUITE);
  });

  for (const test of tests) {
    describe(test, () => {
      const result = runCedarTest(test, read);

      it('loads exactly when Cedar validates its policies', () => {
        expect(result.validationDetail).toBeUndefined();
        expect(result.validation).toBe('agrees');
        expect(result.loaded).toBe(true);
      });

      it.each(result.requests.map((r) => [r.description, r] as const))('%s', (_description, request) => {
        expect(request.detail).toBeUndefined();
        expect(request.outcome).toBe('agrees');
      });
    });
  }
});
