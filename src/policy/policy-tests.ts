import { z } from 'zod';
import { directoryDataSchema } from '../directory';
import { PolicyImageError, PolicyImageTooLargeError } from './policy-errors';
import { sortedPaths } from './policy-image';

/**
 * Bounds on the tests an image carries. Every case is evaluated on push (on the request's
 * thread) and again at each edge before a swap; a case costs well under a millisecond,
 * so 100 keep both far below the cost of compiling the image itself.
 */
export const POLICY_TEST_LIMITS = Object.freeze({
  /** Cases in all of an image's `tests/*.json` files together. */
  maxCases: 100,
});

/** Test files live in `tests/` and end in `.json`, one level deep. */
const TEST_PATH_PATTERN = /^tests\/[A-Za-z0-9_][A-Za-z0-9._-]*\.json$/;

/** True for a path that names a test file of an image (`tests/<name>.json`). */
export function isPolicyTestPath(path: string): boolean {
  return TEST_PATH_PATTERN.test(path);
}

const attributeValue = z.union([z.string().max(256), z.number(), z.boolean()]);

// The shape of the `cedar` CLI's run-tests cases (name, request, entities, decision), with
// the entities given as a directory fixture: the edge builds them from its directory the
// same way, so the case runs the real decision path. There is no `context`: the decision
// path carries none, and a field that is accepted and ignored would make a test lie.
const testCaseShape = z.strictObject({
  name: z.string().min(1).max(200),
  request: z.strictObject({
    /** A user id of the fixture directory (the access token's `sub`). */
    principal: z.string().min(1).max(128),
    /** The bare Cedar action id, e.g. `DELETE`. */
    action: z.string().min(1).max(128),
    resource: z.strictObject({
      type: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an entity type without namespace, e.g. Resource'),
      id: z.string().min(1).max(128),
      attributes: z.record(z.string(), attributeValue).optional(),
    }),
  }),
  directory: directoryDataSchema,
  decision: z.enum(['allow', 'deny']),
});

const testFileShape = z.array(testCaseShape).min(1, 'a test file holds at least one case').max(POLICY_TEST_LIMITS.maxCases);

/** One test case of an image, as written in its file. */
export type PolicyTestCase = z.infer<typeof testCaseShape>;

/** The cases of one `tests/*.json` file. */
export interface PolicyTestSuite {
  readonly file: string;
  readonly cases: readonly PolicyTestCase[];
}

function parseTestFile(file: string, text: string): PolicyTestCase[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new PolicyImageError(`${file} is not valid JSON`);
  }
  const parsed = testFileShape.safeParse(json);
  if (!parsed.success) throw new PolicyImageError(`${file}: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
  return parsed.data;
}

// An image's tests are parsed when it arrives (verifyPolicyImage) and again when they run
// before a swap, a push or a start: the second parse of one image's frozen `files` (its
// content cannot change) returns the first's suites. Held weakly: gone with the image.
const parsedOnce = new WeakMap<Readonly<Record<string, string>>, readonly PolicyTestSuite[]>();

/**
 * Parses and checks every `tests/*.json` file of an image, in path order. Throws
 * {@link PolicyImageError} naming the file and the problem, or
 * {@link PolicyImageTooLargeError} when the image holds more than
 * {@link POLICY_TEST_LIMITS}.maxCases cases in all. An image without tests has no suites.
 * The suites of a frozen `files` (an image's) are parsed once and shared: read-only.
 */
export function parsePolicyTests(files: Readonly<Record<string, string>>): readonly PolicyTestSuite[] {
  const parsed = parsedOnce.get(files);
  if (parsed !== undefined) return parsed;
  const suites: PolicyTestSuite[] = [];
  let total = 0;
  for (const file of sortedPaths(files).filter(isPolicyTestPath)) {
    const cases = parseTestFile(file, files[file] as string);
    total += cases.length;
    if (total > POLICY_TEST_LIMITS.maxCases) {
      throw new PolicyImageTooLargeError(`policy image has more than ${POLICY_TEST_LIMITS.maxCases} test cases`);
    }
    suites.push(Object.freeze({ file, cases: Object.freeze(cases) }));
  }
  Object.freeze(suites);
  if (Object.isFrozen(files)) parsedOnce.set(files, suites);
  return suites;
}
