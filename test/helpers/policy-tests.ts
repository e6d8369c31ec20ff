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

/** A test case as a file may write it: with a directory of its own, or none (the folder's shared one). */
export type WrittenTestCase = Omit<PolicyTestCase, 'directory'> & { directory?: PolicyTestCase['directory'] };

/** {@link rbacCase} without a directory of its own: decided over the folder's `tests/directory.json`. */
export function sharedDirectoryCase(name: string, principal: string, action: string, decision: 'allow' | 'deny'): WrittenTestCase {
  const { directory: _own, ...written } = rbacCase(name, principal, action, decision);
  return written;
}

/** A test file's text holding `cases`. */
export function testFile(...cases: WrittenTestCase[]): string {
  return JSON.stringify(cases);
}

/**
 * The failing cases that refuse policies/rbac with viewers in the editors' rule
 * (`principal in Outpost::Role::"viewer"` may PUT and POST), as a refusal lists them: the
 * shipped tests' viewers may not PUT or POST.
 */
export const VIEWERS_WRITE_FAILURES = [
  'tests/citadel-directory.json "Beth Smith (viewer) may not PUT": expected deny, got allow',
  'tests/citadel-directory.json "Beth Smith (viewer) may not POST": expected deny, got allow',
  'tests/citadel-directory.json "Jerry Smith (viewer) may not PUT": expected deny, got allow',
  'tests/citadel-directory.json "Jerry Smith (viewer) may not POST": expected deny, got allow',
  'tests/rbac.json "a viewer may not PUT": expected deny, got allow',
];

/** The message of that refusal (`PolicyTestsFailedError`). */
export const VIEWERS_WRITE_REFUSAL = `5 of 32 tests of policy image "rbac" failed: ${VIEWERS_WRITE_FAILURES.join('; ')}`;
