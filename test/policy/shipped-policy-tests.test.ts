/**
 * CI runs the tests every shipped policy carries: each folder of `policies/` must have
 * tests, with at least one allow and one deny case, and all of them must pass. Each shipped
 * policy's tests/citadel-directory.json pins what the demo's users may do: every user of
 * data/citadel-directory.json, every action its schema lets a user ask, over that directory,
 * written once as the folder's shared tests/directory.json. The folders and their actions are read from policies/, never listed here: a policy that
 * `npm run new-app` adds is checked the same way (it writes those files too).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runPolicyTests } from '../../src/decision';
import { compilePolicyImage, parsePolicyTests, qualifyType, readPolicyFolder } from '../../src/policy';
import { citadel, policiesDir } from '../authorizer/citadel';

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

/**
 * Every action each policy's schema lets a directory user ask: the requests its demo matrix must
 * ask about. Read from the schema itself, so a policy `npm run new-app` adds is held to the same rule.
 */
function userActions(folder: string): string[] {
  const compiled = compilePolicyImage(readPolicyFolder(join(policiesDir, folder)));
  try {
    const { namespace, userType, actions } = compiled.schema;
    const user = qualifyType(namespace, userType);
    return [...actions].filter(([, applies]) => applies.principalTypes.has(user)).map(([action]) => action);
  } finally {
    compiled.release();
  }
}

describe("the demo directory's matrix in every shipped policy (tests/citadel-directory.json)", () => {
  it("reads the sample policies' actions from their schemas", () => {
    expect(userActions('rbac').sort()).toEqual(['DELETE', 'GET', 'POST', 'PUT']);
    expect(userActions('todo').sort()).toEqual(['can_create_todo', 'can_delete_todo', 'can_read_todos', 'can_read_user', 'can_update_todo']);
  });

  it.each(folders)("policies/%s: every demo user asks every action, over the demo's roles, users and resources", (folder) => {
    const demo = citadel();
    const suite = parsePolicyTests(readPolicyFolder(join(policiesDir, folder)).files).find((s) => s.file === 'tests/citadel-directory.json');
    expect(suite).toBeDefined();
    for (const { directory } of suite!.cases) {
      expect({ roles: directory.roles, users: directory.users }).toEqual({ roles: demo.roles, users: demo.users });
      for (const resource of directory.resources) expect(demo.resources).toContainEqual(resource);
    }
    const expected = userActions(folder).sort();
    expect(expected.length).toBeGreaterThan(0);
    for (const user of demo.users) {
      const actions = new Set(suite!.cases.filter((c) => c.request.principal === user.id).map((c) => c.request.action));
      expect({ user: user.name, actions: [...actions].sort() }).toEqual({ user: user.name, actions: expected });
    }
  });

  it.each(folders)('policies/%s: writes the demo directory once, in tests/directory.json, not in each case', (folder) => {
    const { files } = readPolicyFolder(join(policiesDir, folder));
    const shared = JSON.parse(files['tests/directory.json'] ?? 'null') as { roles: unknown; users: unknown } | null;
    expect(shared && { roles: shared.roles, users: shared.users }).toEqual({ roles: citadel().roles, users: citadel().users });
    const written = JSON.parse(files['tests/citadel-directory.json']!) as { directory?: { users: unknown } }[];
    // A case may carry a directory of its own (another resource, say), never the shared one again.
    expect(written.filter((c) => c.directory !== undefined && JSON.stringify(c.directory) === JSON.stringify(shared))).toEqual([]);
    expect(written.filter((c) => c.directory === undefined).length).toBeGreaterThan(written.length / 2);
  });
});
