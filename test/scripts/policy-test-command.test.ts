import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript } from '../../scripts/lib/run-script';
import { ScriptError } from '../../scripts/lib/script-error';
import { testPolicyFolder } from '../../scripts/lib/test-policy-folder';
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
      'pass    allow     allow   tests/rbac.json: a viewer may GET',
      'pass    deny      deny    tests/rbac.json: a viewer may not PUT',
    ]);
    expect(table!.split('\n')).toHaveLength(9);
    expect(summary).toBe('rbac: 8 passed, 0 failed');
  });

  it('marks a failing case FAIL and exits non-zero with the counts', async () => {
    const policy = join(dir, 'rbac', 'rbac.cedar');
    writeFileSync(policy, readFileSync(policy, 'utf8').replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"'));
    await expect(testPolicyFolder(join(dir, 'rbac'), print)).rejects.toThrow(new ScriptError('rbac: 7 passed, 1 failed'));
    expect(printed[0]).toContain('\nFAIL    deny      allow   tests/rbac.json: a viewer may not PUT\n');

    const exitCode = process.exitCode;
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const logs = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    try {
      await runScript('policy test', () => testPolicyFolder(join(dir, 'rbac')));
      expect(process.exitCode).toBe(1);
      expect(errors).toHaveBeenCalledWith('policy test: rbac: 7 passed, 1 failed');
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
