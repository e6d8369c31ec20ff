import { join } from 'node:path';
import {
  POLICY_IMAGE_LIMITS,
  POLICY_TEST_LIMITS,
  PolicyImageError,
  PolicyImageTooLargeError,
  createPolicyImage,
  parsePolicyTests,
  readPolicyFolder,
  verifyPolicyImage,
} from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';
import { FIXTURE_DIRECTORY, rbacCase, sharedDirectoryCase, testFile } from '../helpers/policy-tests';

const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
const stock = Object.fromEntries(Object.entries(rbac.files).filter(([path]) => !path.startsWith('tests/')));
const withTests = (tests: Record<string, string>) => createPolicyImage('rbac', { ...stock, ...tests });
const reject = (tests: Record<string, string>, message: RegExp) => {
  expect(() => verifyPolicyImage(withTests(tests))).toThrow(PolicyImageError);
  expect(() => verifyPolicyImage(withTests(tests))).toThrow(message);
};

describe('tests inside a policy image', () => {
  it('travel inside the image: read from tests/*.json, covered by the digest', () => {
    expect(Object.keys(rbac.files)).toContain('tests/rbac.json');
    expect(parsePolicyTests(rbac.files)[0]?.cases.length).toBeGreaterThan(0);
    const changed = withTests({ 'tests/rbac.json': testFile(rbacCase('a viewer may GET', 'vic', 'GET', 'allow')) });
    expect(changed.digest).not.toBe(rbac.digest);
    expect(verifyPolicyImage(JSON.parse(JSON.stringify(changed)))).toEqual(changed);
  });

  it('parses suites in path order with their cases', () => {
    const one = rbacCase('one', 'vic', 'GET', 'allow');
    const two = rbacCase('two', 'vic', 'PUT', 'deny');
    expect(parsePolicyTests({ ...stock, 'tests/b.json': testFile(two), 'tests/a.json': testFile(one) })).toEqual([
      { file: 'tests/a.json', cases: [one] },
      { file: 'tests/b.json', cases: [two] },
    ]);
    expect(parsePolicyTests(stock)).toEqual([]);
  });

  it('are parsed once per image: checked on arrival, then run from that parse', () => {
    const image = verifyPolicyImage(JSON.parse(JSON.stringify(rbac)));
    const parse = jest.spyOn(JSON, 'parse');
    try {
      const suites = parsePolicyTests(image.files);
      expect(suites.length).toBeGreaterThan(0);
      expect(parse).not.toHaveBeenCalled();
      expect(Object.isFrozen(suites) && Object.isFrozen(suites[0]!.cases)).toBe(true);
      // Files that are not an image's (not frozen) may change: parsed each time.
      parsePolicyTests({ ...image.files });
      expect(parse).toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
  });

  it('refuses test files that are not JSON or not the case shape, naming the file', () => {
    reject({ 'tests/x.json': '[' }, /^tests\/x\.json is not valid JSON$/);
    reject({ 'tests/x.json': '[]' }, /tests\/x\.json: .*at least one case/);
    const { decision: _dropped, ...noDecision } = rbacCase('no decision', 'vic', 'GET', 'allow');
    reject({ 'tests/x.json': JSON.stringify([noDecision]) }, /tests\/x\.json: .*decision/);
    reject({ 'tests/x.json': JSON.stringify([{ ...rbacCase('maybe', 'vic', 'GET', 'allow'), decision: 'maybe' }]) }, /decision/);
    // The decision path carries no context: a case that sets one is refused, not silently ignored.
    const withContext = rbacCase('context', 'vic', 'GET', 'allow');
    reject({ 'tests/x.json': JSON.stringify([{ ...withContext, request: { ...withContext.request, context: { ip: '10.0.0.1' } } }]) }, /context/);
    reject({ 'tests/x.json': JSON.stringify([{ ...withContext, directory: { users: [] } }]) }, /directory/);
  });

  it('give each case without a directory the shared tests/directory.json, which is no suite; a case keeps its own', () => {
    const own = rbacCase('own', 'vic', 'GET', 'allow');
    const shared = { ...FIXTURE_DIRECTORY, users: [FIXTURE_DIRECTORY.users[0]!] };
    const suites = parsePolicyTests({ ...stock, 'tests/directory.json': JSON.stringify(shared), 'tests/a.json': testFile(sharedDirectoryCase('shared', 'vic', 'GET', 'allow'), own) });
    expect(suites).toEqual([{ file: 'tests/a.json', cases: [{ ...sharedDirectoryCase('shared', 'vic', 'GET', 'allow'), directory: shared }, own] }]);
  });

  it('travel with the shared directory fixture: it is read from the folder and covered by the digest', () => {
    const files = { 'tests/directory.json': JSON.stringify(FIXTURE_DIRECTORY), 'tests/a.json': testFile(sharedDirectoryCase('shared', 'vic', 'GET', 'allow')) };
    const image = verifyPolicyImage(JSON.parse(JSON.stringify(withTests(files))));
    expect(image.files['tests/directory.json']).toBe(files['tests/directory.json']);
    const other = { ...FIXTURE_DIRECTORY, users: [FIXTURE_DIRECTORY.users[1]!] };
    expect(withTests({ ...files, 'tests/directory.json': JSON.stringify(other) }).digest).not.toBe(image.digest);
    expect(Object.keys(rbac.files)).toContain('tests/directory.json');
  });

  it('refuse a malformed shared tests/directory.json, naming the file and what is wrong', () => {
    const cases = testFile(sharedDirectoryCase('shared', 'vic', 'GET', 'allow'));
    reject({ 'tests/directory.json': '{', 'tests/a.json': cases }, /^tests\/directory\.json is not valid JSON$/);
    reject({ 'tests/directory.json': JSON.stringify({ roles: [], resources: [] }), 'tests/a.json': cases }, /^tests\/directory\.json \(the directory fixture the folder's test cases share\): .*users/);
    reject(
      { 'tests/directory.json': JSON.stringify({ ...FIXTURE_DIRECTORY, users: [{ id: 'vic' }] }), 'tests/a.json': cases },
      /^tests\/directory\.json \(the directory fixture the folder's test cases share\): .*users\[0\]\.email/,
    );
    // A list of cases under that name is not taken for a test file: it says so.
    reject({ 'tests/directory.json': cases }, /^tests\/directory\.json is the directory fixture the folder's test cases share .*not a list of cases: give the cases another file name$/);
    // Checked on arrival even where no case uses it.
    reject({ 'tests/directory.json': '[]' }, /not a list of cases/);
  });

  it('refuse a case without a directory in a folder that shares none, naming the file and the case', () => {
    reject({ 'tests/a.json': testFile(rbacCase('own', 'vic', 'GET', 'allow'), sharedDirectoryCase('no fixture', 'vic', 'GET', 'allow')) }, /^tests\/a\.json: case "no fixture" has no directory, and the folder has no tests\/directory\.json to share$/);
  });

  it('allows only tests/<name>.json, one level deep', () => {
    const file = testFile(rbacCase('one', 'vic', 'GET', 'allow'));
    reject({ 'tests/deeper/x.json': file }, /is not allowed/);
    reject({ 'tests/x.txt': file }, /is not allowed/);
    reject({ 'x.json': file }, /is not allowed/);
  });

  it(`bounds the cases of an image at ${POLICY_TEST_LIMITS.maxCases}, across files`, () => {
    const cases = Array.from({ length: POLICY_TEST_LIMITS.maxCases / 2 }, (_, i) => rbacCase(`case ${i}`, 'vic', 'GET', 'allow'));
    expect(() => verifyPolicyImage(withTests({ 'tests/a.json': testFile(...cases), 'tests/b.json': testFile(...cases) }))).not.toThrow();
    const tooMany = { 'tests/a.json': testFile(...cases), 'tests/b.json': testFile(...cases), 'tests/c.json': testFile(cases[0]!) };
    expect(() => verifyPolicyImage(withTests(tooMany))).toThrow(PolicyImageTooLargeError);
    reject(tooMany, new RegExp(`more than ${POLICY_TEST_LIMITS.maxCases} test cases`));
    reject({ 'tests/a.json': testFile(...cases, ...cases, cases[0]!) }, /tests\/a\.json: .*100/);
  });

  it('counts test files under the image size limits', () => {
    const padded = (bytes: number) => {
      const text = testFile(rbacCase('padded', 'vic', 'GET', 'allow'));
      return `${text}${' '.repeat(bytes - Buffer.byteLength(text))}`;
    };
    reject({ 'tests/big.json': padded(POLICY_IMAGE_LIMITS.maxFileBytes + 1) }, /tests\/big\.json is 65537 bytes \(limit 65536\)/);
    const total = { 'tests/a.json': padded(60_000), 'tests/b.json': padded(60_000), 'tests/c.json': padded(20_000) };
    reject(total, /policy image is \d+ bytes \(limit 131072\)/);
  });
});
