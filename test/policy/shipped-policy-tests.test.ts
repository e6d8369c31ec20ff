/**
 * CI runs the tests every shipped policy carries: each folder of `policies/` must have
 * tests, with at least one allow and one deny case, and all of them must pass.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runPolicyTests } from '../../src/decision';
import { compilePolicyImage, readPolicyFolder } from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';

const folders = readdirSync(policiesDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

describe('the tests inside every shipped policy', () => {
  it('covers the three shipped policies', () => {
    expect(folders).toEqual(expect.arrayContaining(['rbac', 'rebac', 'todo']));
  });

  it.each(folders)('policies/%s: every case passes, with allow and deny cases', (folder) => {
    const image = readPolicyFolder(join(policiesDir, folder));
    const compiled = compilePolicyImage(image);
    try {
      const results = runPolicyTests(image, compiled);
      expect(results.filter((r) => !r.passed)).toEqual([]);
      expect(results.some((r) => r.expected === 'allow')).toBe(true);
      expect(results.some((r) => r.expected === 'deny')).toBe(true);
    } finally {
      compiled.release();
    }
  });
});
