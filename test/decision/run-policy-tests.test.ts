import { join } from 'node:path';
import { PolicyTestsFailedError, assertPolicyTestsPass, runPolicyTests } from '../../src/decision';
import { compilePolicyImage, createPolicyImage, readPolicyFolder, type CompiledPolicy, type PolicyImage } from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';
import { FIXTURE_DIRECTORY, rbacCase, sharedDirectoryCase, testFile } from '../helpers/policy-tests';

const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
// The rbac policy without its shipped tests, plus the given test files.
const stock = Object.fromEntries(Object.entries(rbac.files).filter(([path]) => !path.startsWith('tests/')));
const imageWith = (...files: [string, string][]): PolicyImage => createPolicyImage('rbac', { ...stock, ...Object.fromEntries(files) });

describe('runPolicyTests', () => {
  let compiled: CompiledPolicy;
  beforeAll(() => {
    compiled = compilePolicyImage(rbac);
  });
  afterAll(() => compiled.release());

  it('decides each case from its own directory fixture, through the local authorizer', () => {
    // The same question, two fixtures: vic is a viewer in one and an admin in the other.
    const promoted = { ...FIXTURE_DIRECTORY, users: FIXTURE_DIRECTORY.users.map((u) => (u.id === 'vic' ? { ...u, roles: ['admin'] } : u)) };
    const image = imageWith([
      'tests/a.json',
      testFile(rbacCase('viewer DELETE', 'vic', 'DELETE', 'deny'), { ...rbacCase('admin DELETE', 'vic', 'DELETE', 'allow'), directory: promoted }),
    ]);
    expect(runPolicyTests(image, compiled)).toEqual([
      { file: 'tests/a.json', name: 'viewer DELETE', expected: 'deny', actual: 'deny', passed: true },
      { file: 'tests/a.json', name: 'admin DELETE', expected: 'allow', actual: 'allow', passed: true },
    ]);
  });

  it("decides a case without a directory over the folder's shared tests/directory.json", () => {
    const promoted = { ...FIXTURE_DIRECTORY, users: FIXTURE_DIRECTORY.users.map((u) => (u.id === 'vic' ? { ...u, roles: ['admin'] } : u)) };
    const cases = testFile(sharedDirectoryCase('vic DELETE', 'vic', 'DELETE', 'deny'), sharedDirectoryCase('ada DELETE', 'ada', 'DELETE', 'allow'));
    expect(runPolicyTests(imageWith(['tests/a.json', cases], ['tests/directory.json', JSON.stringify(FIXTURE_DIRECTORY)]), compiled)).toEqual([
      { file: 'tests/a.json', name: 'vic DELETE', expected: 'deny', actual: 'deny', passed: true },
      { file: 'tests/a.json', name: 'ada DELETE', expected: 'allow', actual: 'allow', passed: true },
    ]);
    // The same file over another shared fixture (vic an admin): the answers follow the fixture.
    expect(runPolicyTests(imageWith(['tests/a.json', cases], ['tests/directory.json', JSON.stringify(promoted)]), compiled)).toEqual([
      { file: 'tests/a.json', name: 'vic DELETE', expected: 'deny', actual: 'allow', passed: false },
      { file: 'tests/a.json', name: 'ada DELETE', expected: 'allow', actual: 'allow', passed: true },
    ]);
  });

  it("decides a case with a directory of its own over that one, not the shared one, in every file of the folder", () => {
    const promoted = { ...FIXTURE_DIRECTORY, users: FIXTURE_DIRECTORY.users.map((u) => (u.id === 'vic' ? { ...u, roles: ['admin'] } : u)) };
    const image = imageWith(
      ['tests/directory.json', JSON.stringify(promoted)],
      // The old form: the case carries its fixture (vic a viewer), beside a case that shares.
      ['tests/a.json', testFile(rbacCase('vic, a viewer here, DELETE', 'vic', 'DELETE', 'deny'), sharedDirectoryCase('vic, shared admin, DELETE', 'vic', 'DELETE', 'allow'))],
      ['tests/b.json', testFile(sharedDirectoryCase('vic, shared admin, PUT', 'vic', 'PUT', 'allow'))],
    );
    expect(runPolicyTests(image, compiled)).toEqual([
      { file: 'tests/a.json', name: 'vic, a viewer here, DELETE', expected: 'deny', actual: 'deny', passed: true },
      { file: 'tests/a.json', name: 'vic, shared admin, DELETE', expected: 'allow', actual: 'allow', passed: true },
      { file: 'tests/b.json', name: 'vic, shared admin, PUT', expected: 'allow', actual: 'allow', passed: true },
    ]);
  });

  it('reports a case whose decision differs as failed, with both decisions', () => {
    const image = imageWith(['tests/a.json', testFile(rbacCase('viewer PUT', 'vic', 'PUT', 'allow'), rbacCase('stranger GET', 'nobody', 'GET', 'allow'))]);
    expect(runPolicyTests(image, compiled)).toEqual([
      { file: 'tests/a.json', name: 'viewer PUT', expected: 'allow', actual: 'deny', passed: false },
      { file: 'tests/a.json', name: 'stranger GET', expected: 'allow', actual: 'deny', passed: false },
    ]);
    let err: unknown;
    try {
      assertPolicyTestsPass(image, compiled);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PolicyTestsFailedError);
    expect((err as PolicyTestsFailedError).failures).toEqual([
      'tests/a.json "viewer PUT": expected allow, got deny',
      'tests/a.json "stranger GET": expected allow, got deny',
    ]);
    expect((err as Error).message).toBe(
      '2 of 2 tests of policy image "rbac" failed: tests/a.json "viewer PUT": expected allow, got deny; tests/a.json "stranger GET": expected allow, got deny',
    );
  });

  it('names the first five failures in the message and counts the rest', () => {
    const cases = Array.from({ length: 7 }, (_, i) => rbacCase(`case ${i}`, 'vic', 'DELETE', 'allow'));
    const image = imageWith(['tests/a.json', testFile(...cases)]);
    expect(() => assertPolicyTestsPass(image, compiled)).toThrow(/^7 of 7 tests .*"case 4": expected allow, got deny; and 2 more$/);
  });

  it('passes an image whose cases all hold, and one without tests', () => {
    expect(assertPolicyTestsPass(rbac, compiled)).toBeUndefined();
    expect(runPolicyTests(imageWith(), compiled)).toEqual([]);
  });

  it('fails a case the decision path cannot answer, with the reason', () => {
    const released = compilePolicyImage(createPolicyImage('rbac', { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// released\n` }));
    released.release();
    const image = imageWith(['tests/a.json', testFile(rbacCase('viewer GET', 'vic', 'GET', 'allow'))]);
    const [result] = runPolicyTests(image, released);
    expect(result).toMatchObject({ name: 'viewer GET', actual: 'error', passed: false, error: expect.stringMatching(/could not be evaluated: .*released/) });
  });
});
