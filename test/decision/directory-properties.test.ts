import { join } from 'node:path';
import { findProjectRoot } from '../../src/config';
import { createLocalAuthorizer } from '../../src/decision';
import type { DirectoryData } from '../../src/directory';
import { compilePolicyImage, readPolicyFolder, type CompiledPolicy } from '../../src/policy';

// Decisions read the directory's properties of users and typed resources (policies/
// authzen-search: departments and owners), and a caller's properties never override them.

const directory: DirectoryData = {
  revision: 7,
  roles: [{ id: 'manager', includes: [] }],
  users: [
    { id: 'alice', email: 'alice@example.com', name: 'Alice', roles: ['manager'], properties: { department: 'Sales' } },
    { id: 'bob', email: 'bob@example.com', name: 'Bob', roles: [], properties: { department: 'Legal', ignored: 'not in the schema' } },
    { id: 'carol', email: 'carol@example.com', name: 'Carol', roles: [], properties: { department: 42 } },
  ],
  resources: [{ id: '101', type: 'record', properties: { department: 'Legal', owner: 'alice' }, relations: { owner: [], writer: [], reader: [] } }],
};

let policy: CompiledPolicy;
beforeAll(() => {
  policy = compilePolicyImage(readPolicyFolder(join(findProjectRoot(), 'policies', 'authzen-search')));
});
afterAll(() => policy.release());

const authorizer = () => createLocalAuthorizer({ policy: () => policy, directory: () => directory, cacheSize: 0 });
const ask = (principal: string, action: string, id: string, attributes?: Record<string, string>) =>
  authorizer().decideNow({ principal, action, resource: { type: 'record', id, ...(attributes ? { attributes } : {}) }, policyPath: `authzen-search.${action}` }).allowed;

describe('directory properties in decisions', () => {
  it("are the user's and the record's: owner, department", () => {
    expect(ask('alice', 'delete', '101')).toBe(true);
    expect(ask('bob', 'view', '101')).toBe(true);
    expect(ask('bob', 'edit', '101')).toBe(false);
  });

  it("win over a caller's: bob cannot claim to own record 101, nor move it to his department", () => {
    expect(ask('bob', 'delete', '101', { owner: 'bob' })).toBe(false);
    expect(ask('bob', 'edit', '101', { owner: 'bob' })).toBe(false);
    // Were the caller's department taken, bob (Legal) could no longer view a Legal record.
    expect(ask('bob', 'view', '101', { department: 'Finance' })).toBe(true);
  });

  it("are a caller's only for a record the directory does not hold", () => {
    expect(ask('bob', 'delete', '999', { owner: 'bob' })).toBe(true);
    expect(ask('bob', 'delete', '999')).toBe(false);
  });

  it('that contradict the schema are left out: the policy reading them does not permit', () => {
    // carol's department is a number where the schema says String: no department, no view.
    expect(ask('carol', 'view', '101')).toBe(false);
  });
});
