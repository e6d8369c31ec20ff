import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { runScript } from '../../scripts/lib/run-script';
import { ScriptError } from '../../scripts/lib/script-error';
import { testPolicyFolder } from '../../scripts/lib/test-policy-folder';
import { readPolicyFolder } from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';

describe('npm run policy -- test <folder>', () => {
  let dir: string;
  let printed: string[];
  const print = (text: string) => printed.push(text);
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-policy-test-'));
    cpSync(join(policiesDir, 'rbac'), join(dir, 'rbac'), { recursive: true });
    printed = [];
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('prints a table of every case and a summary for a passing folder', async () => {
    await testPolicyFolder(join(dir, 'rbac'), print);
    const [table, summary] = printed;
    expect(table!.split('\n').slice(0, 3)).toEqual([
      'result  expected  actual  case',
      'pass    allow     allow   tests/citadel-directory.json: Rick Sanchez (admin, evil_genius) may GET',
      'pass    allow     allow   tests/citadel-directory.json: Rick Sanchez (admin, evil_genius) may PUT',
    ]);
    expect(table!.split('\n')).toHaveLength(33);
    expect(table).toContain('\npass    deny      deny    tests/citadel-directory.json: Morty Smith (editor) may not DELETE\n');
    expect(summary).toBe('rbac: 32 passed, 0 failed');
  });

  it("fails the folder once editors may DELETE, until the policy's tests say so too", async () => {
    const policy = join(dir, 'rbac', 'rbac.cedar');
    const text = readFileSync(policy, 'utf8');
    const editorsDelete = text.replace('[Outpost::Action::"PUT", Outpost::Action::"POST"]', '[Outpost::Action::"PUT", Outpost::Action::"POST", Outpost::Action::"DELETE"]');
    expect(editorsDelete).not.toBe(text);
    writeFileSync(policy, editorsDelete);
    await expect(testPolicyFolder(join(dir, 'rbac'), print)).rejects.toThrow(new ScriptError('rbac: 30 passed, 2 failed'));
    expect(printed[0]!.split('\n').filter((line) => line.startsWith('FAIL'))).toEqual([
      'FAIL    deny      allow   tests/citadel-directory.json: Morty Smith (editor) may not DELETE',
      'FAIL    deny      allow   tests/citadel-directory.json: Summer Smith (editor) may not DELETE',
    ]);

    // letEditorsDelete (npm run demo's change) changes the tests with the policy.
    writeFileSync(policy, text);
    const changedFiles = letEditorsDelete(readPolicyFolder(join(dir, 'rbac')).files);
    // The cases keep sharing tests/directory.json: none gets the demo directory written into it.
    expect((JSON.parse(changedFiles['tests/citadel-directory.json']!) as object[]).filter((c) => 'directory' in c)).toEqual([]);
    for (const [path, changed] of Object.entries(changedFiles)) writeFileSync(join(dir, 'rbac', path), changed);
    printed = [];
    await testPolicyFolder(join(dir, 'rbac'), print);
    expect(printed[1]).toBe('rbac: 32 passed, 0 failed');
    expect(printed[0]).toContain('\npass    allow     allow   tests/citadel-directory.json: Morty Smith (editor) may DELETE\n');
  });

  it('marks a failing case FAIL and exits non-zero with the counts', async () => {
    const policy = join(dir, 'rbac', 'rbac.cedar');
    writeFileSync(policy, readFileSync(policy, 'utf8').replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"'));
    await expect(testPolicyFolder(join(dir, 'rbac'), print)).rejects.toThrow(new ScriptError('rbac: 27 passed, 5 failed'));
    expect(printed[0]).toContain('\nFAIL    deny      allow   tests/rbac.json: a viewer may not PUT\n');

    const exitCode = process.exitCode;
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const logs = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await runScript('policy test', () => testPolicyFolder(join(dir, 'rbac')));
      expect(process.exitCode).toBe(1);
      expect(errors).toHaveBeenCalledWith('policy test: rbac: 27 passed, 5 failed');
    } finally {
      process.exitCode = exitCode;
      errors.mockRestore();
      logs.mockRestore();
    }
  });

  it('refuses a folder without tests, and an invalid folder, with one line', async () => {
    rmSync(join(dir, 'rbac', 'tests'), { recursive: true });
    await expect(testPolicyFolder(join(dir, 'rbac'), print)).rejects.toThrow(/has no test cases \(add tests\/\*\.json\)$/);
    await expect(testPolicyFolder(join(dir, 'missing'), print)).rejects.toThrow(ScriptError);
    expect(printed).toEqual([]);
  });
});
