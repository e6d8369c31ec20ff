// npm run demo's changed rbac policy (scripts/lib/let-editors-delete.ts) keeps the layout of the
// policy's test files: a diff of the two images — the console's Policies view, `git diff` —
// shows the two lines each changed case changes, not the whole file replaced by one line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatPolicyTests } from '../../scripts/lib/format-policy-tests';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { readPolicyFolder } from '../../src/policy';
import { policiesDir } from '../authorizer/citadel';

/** The lines of `after` that differ from `before` at the same place (both must have as many). */
function changedLines(before: string, after: string): [string, string][] {
  const a = before.split('\n');
  const b = after.split('\n');
  expect(b).toHaveLength(a.length);
  return a.flatMap((line, i): [string, string][] => (line === b[i] ? [] : [[line, b[i]!]]));
}

describe('the test files of the demo\'s changed rbac policy', () => {
  const rbac = readPolicyFolder(join(policiesDir, 'rbac'));
  const changed = letEditorsDelete(rbac.files);

  it('change two lines of each case that denied an editor\'s DELETE, and no other line', () => {
    expect(changedLines(rbac.files['tests/citadel-directory.json']!, changed['tests/citadel-directory.json']!)).toEqual([
      ['    "name": "Morty Smith (editor) may not DELETE",', '    "name": "Morty Smith (editor) may DELETE",'],
      ['    "decision": "deny"', '    "decision": "allow"'],
      ['    "name": "Summer Smith (editor) may not DELETE",', '    "name": "Summer Smith (editor) may DELETE",'],
      ['    "decision": "deny"', '    "decision": "allow"'],
    ]);
    expect(changed['tests/rbac.json']).toBe(rbac.files['tests/rbac.json']); // no editor's DELETE denied there
  });

  it('are written as the sample policies\' test files are (the formatter gives back each one unchanged)', () => {
    for (const policy of ['rbac', 'rebac', 'todo']) {
      for (const file of ['citadel-directory.json', `${policy}.json`]) {
        const text = readFileSync(join(policiesDir, policy, 'tests', file), 'utf8');
        expect({ file: `${policy}/tests/${file}`, text: formatPolicyTests(JSON.parse(text) as Record<string, unknown>[]) }).toEqual({ file: `${policy}/tests/${file}`, text });
      }
    }
  });
});
