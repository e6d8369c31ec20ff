import { expandRoles } from '../../src/directory';
import { parsePolicyTests, type PolicyTestCase } from '../../src/policy';
import { formatPolicyTests } from './format-policy-tests';

/** The rule `npm run demo`, the benches and the tests add to rbac: editors may DELETE too. */
export const EDITORS_MAY_DELETE = `// Editors may DELETE too: the changed rbac policy of npm run demo, the benches and the tests.
permit (
  principal in Outpost::Role::"editor",
  action == Outpost::Action::"DELETE",
  resource is Outpost::Resource
);
`;

/** True for a case asking whether an editor (or an admin: admins are editors too) may DELETE. */
function asksEditorDelete(testCase: PolicyTestCase): boolean {
  const user = testCase.directory.users.find((u) => u.id === testCase.request.principal);
  return testCase.request.action === 'DELETE' && user !== undefined && expandRoles(testCase.directory, user.roles).includes('editor');
}

/**
 * The rbac policy's files (policies/rbac as `readPolicyFolder` reads it) changed so editors
 * may DELETE: {@link EDITORS_MAY_DELETE} as `editors-delete.cedar`, and the policy's own tests
 * changed with it — each case that expects an editor's DELETE to be denied now expects it
 * allowed, and says so in its name (the file written as the sample policies' tests are, so a
 * diff shows the changed lines). Without the second half the image fails its own tests
 * ("Morty Smith (editor) may not DELETE") and a push is refused with 400 policy_tests_failed.
 */
export function letEditorsDelete(files: Readonly<Record<string, string>>): Record<string, string> {
  const changed: Record<string, string> = { ...files, 'editors-delete.cedar': EDITORS_MAY_DELETE };
  for (const suite of parsePolicyTests(files)) {
    if (!suite.cases.some((c) => asksEditorDelete(c) && c.decision === 'deny')) continue;
    // The file's own cases as written (one that shares tests/directory.json stays without a
    // directory of its own), the changed ones changed in place, and
    // written as the sample policies' tests are: a diff of the two images shows two lines a case.
    const written = JSON.parse(files[suite.file]!) as Record<string, unknown>[];
    const cases = suite.cases.map((c, i) =>
      asksEditorDelete(c) && c.decision === 'deny' ? { ...written[i], name: c.name.replace('may not DELETE', 'may DELETE'), decision: 'allow' } : written[i]!,
    );
    changed[suite.file] = formatPolicyTests(cases);
  }
  return changed;
}
