import { z } from 'zod';
import { directoryDataSchema } from './directory-data';
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

/**
 * The folder's shared directory fixture: every case of its test files that carries no
 * `directory` of its own is decided over it (a case's own `directory` wins). It travels in the
 * image like the test files, so the digest, and a signature, cover it.
 */
export const SHARED_DIRECTORY_FILE = 'tests/directory.json';

/**
 * True for a path of an image's tests (`tests/<name>.json`): a test file, or the shared
 * directory fixture {@link SHARED_DIRECTORY_FILE}.
 */
export function isPolicyTestPath(path: string): boolean {
  return TEST_PATH_PATTERN.test(path);
}

const attributeValue = z.union([z.string().max(256), z.number(), z.boolean()]);

// The shape of the `cedar` CLI's run-tests cases (name, request, entities, decision), with
// the entities given as a directory fixture: the edge builds them from its directory the
// same way, so the case runs the real decision path. There is no `context`: the decision
// path carries none, and a field that is accepted and ignored would make a test lie. The
// directory may be left out when the folder shares one (SHARED_DIRECTORY_FILE).
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
  directory: directoryDataSchema.optional(),
  decision: z.enum(['allow', 'deny']),
});

const testFileShape = z.array(testCaseShape).min(1, 'a test file holds at least one case').max(POLICY_TEST_LIMITS.maxCases);

/** A test case's directory fixture: roles, users and resource relations (no revision). */
export type PolicyTestDirectory = z.infer<typeof directoryDataSchema>;

/**
 * One test case of an image: as written in its file, with the directory it is decided over —
 * its own, or the folder's shared one ({@link SHARED_DIRECTORY_FILE}) when it has none.
 */
export type PolicyTestCase = Omit<z.infer<typeof testCaseShape>, 'directory'> & { directory: PolicyTestDirectory };

/** The cases of one `tests/*.json` file. */
export interface PolicyTestSuite {
  readonly file: string;
  readonly cases: readonly PolicyTestCase[];
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new PolicyImageError(`${file} is not valid JSON`);
  }
}

/** The shared directory fixture of an image, or undefined when it has none. */
function parseSharedDirectory(files: Readonly<Record<string, string>>): PolicyTestDirectory | undefined {
  const text = files[SHARED_DIRECTORY_FILE];
  if (text === undefined) return undefined;
  const json = parseJson(SHARED_DIRECTORY_FILE, text);
  if (Array.isArray(json)) {
    throw new PolicyImageError(
      `${SHARED_DIRECTORY_FILE} is the directory fixture the folder's test cases share ({"roles": [...], "users": [...], "resources": [...]}), not a list of cases: give the cases another file name`,
    );
  }
  const parsed = directoryDataSchema.safeParse(json);
  if (!parsed.success) {
    throw new PolicyImageError(`${SHARED_DIRECTORY_FILE} (the directory fixture the folder's test cases share): ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
  }
  return Object.freeze(parsed.data);
}

function parseTestFile(file: string, text: string, shared: PolicyTestDirectory | undefined): PolicyTestCase[] {
  const parsed = testFileShape.safeParse(parseJson(file, text));
  if (!parsed.success) throw new PolicyImageError(`${file}: ${z.prettifyError(parsed.error).replace(/\n/g, ' ')}`);
  return parsed.data.map(({ directory, ...written }) => {
    const decidedOver = directory ?? shared;
    if (decidedOver === undefined) {
      throw new PolicyImageError(`${file}: case ${JSON.stringify(written.name)} has no directory, and the folder has no ${SHARED_DIRECTORY_FILE} to share`);
    }
    return { ...written, directory: decidedOver };
  });
}

// An image's tests are parsed when it arrives (verifyPolicyImage) and again when they run
// before a swap, a push or a start: the second parse of one image's frozen `files` (its
// content cannot change) returns the first's suites. Held weakly: gone with the image.
const parsedOnce = new WeakMap<Readonly<Record<string, string>>, readonly PolicyTestSuite[]>();

/**
 * Parses and checks every `tests/*.json` file of an image, in path order, each case with the
 * directory it is decided over: its own, else the shared {@link SHARED_DIRECTORY_FILE} (itself
 * no suite). Throws {@link PolicyImageError} naming the file and the problem, or
 * {@link PolicyImageTooLargeError} when the image holds more than
 * {@link POLICY_TEST_LIMITS}.maxCases cases in all. An image without tests has no suites.
 * The suites of a frozen `files` (an image's) are parsed once and shared: read-only.
 */
export function parsePolicyTests(files: Readonly<Record<string, string>>): readonly PolicyTestSuite[] {
  const parsed = parsedOnce.get(files);
  if (parsed !== undefined) return parsed;
  const suites: PolicyTestSuite[] = [];
  const shared = parseSharedDirectory(files);
  let total = 0;
  for (const file of sortedPaths(files).filter((path) => isPolicyTestPath(path) && path !== SHARED_DIRECTORY_FILE)) {
    const cases = parseTestFile(file, files[file] as string, shared);
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
