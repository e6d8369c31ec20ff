import type { PolicyTestCase } from '../../src/policy';

/** A directory fixture of the three nested rbac roles: `vic` is a viewer, `ada` an admin. */
export const FIXTURE_DIRECTORY: PolicyTestCase['directory'] = {
  roles: [
    { id: 'viewer', includes: [] },
    { id: 'editor', includes: ['viewer'] },
    { id: 'admin', includes: ['editor'] },
  ],
  users: [
    { id: 'vic', email: 'vic@example.com', name: 'Vic', roles: ['viewer'] },
    { id: 'ada', email: 'ada@example.com', name: 'Ada', roles: ['admin'] },
  ],
  resources: [],
};

/** An rbac test case over {@link FIXTURE_DIRECTORY}: may `principal` do `action` on `Resource::"doc"`? */
export function rbacCase(name: string, principal: string, action: string, decision: 'allow' | 'deny'): PolicyTestCase {
  return { name, request: { principal, action, resource: { type: 'Resource', id: 'doc' } }, directory: FIXTURE_DIRECTORY, decision };
}

/** A test file's text holding `cases`. */
export function testFile(...cases: PolicyTestCase[]): string {
  return JSON.stringify(cases);
}
