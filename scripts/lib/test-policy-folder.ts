import { resolve } from 'node:path';
import { runPolicyTests, type PolicyTestResult } from '../../src/decision';
import { PolicyImageError, PolicyValidationError, compilePolicyImage, readPolicyFolder } from '../../src/policy';
import { formatTable } from './format-table';
import { ScriptError } from './script-error';

const HEADER = ['result', 'expected', 'actual', 'case'] as const;

/**
 * The results as an aligned text table, one row per case in file order: `pass` or
 * `FAIL`, the expected and actual decisions, and `<file>: <name>` (plus the reason when
 * the decision path could not answer).
 */
export function formatTestTable(results: readonly PolicyTestResult[]): string {
  const rows = results.map((r) => [
    r.passed ? 'pass' : 'FAIL',
    r.expected,
    r.actual,
    `${r.file}: ${r.name}${r.error === undefined ? '' : ` (${r.error})`}`,
  ]);
  return formatTable(HEADER, rows);
}

/**
 * `npm run policy -- test <folder>`: reads the folder as an image, compiles it and runs
 * its `tests/*.json` through the same decision path the edge uses, printing a table.
 * Throws {@link ScriptError} (exit code 1) when the folder is invalid, has no tests, or
 * any case fails.
 */
export async function testPolicyFolder(folder: string, print: (text: string) => void = console.log): Promise<void> {
  let compiled;
  let image;
  try {
    image = readPolicyFolder(resolve(folder));
    compiled = compilePolicyImage(image);
  } catch (err) {
    if (err instanceof PolicyImageError || err instanceof PolicyValidationError) throw new ScriptError(err.message);
    throw err;
  }
  try {
    const results = runPolicyTests(image, compiled);
    if (results.length === 0) throw new ScriptError(`${folder} has no test cases (add tests/*.json)`);
    print(formatTestTable(results));
    const failed = results.filter((r) => !r.passed).length;
    const summary = `${image.name}: ${results.length - failed} passed, ${failed} failed`;
    if (failed > 0) throw new ScriptError(summary);
    print(summary);
  } finally {
    compiled.release();
  }
}
