import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLocalAuthorizer } from '../../src/authorizer';
import { PolicyTestsFailedError } from '../../src/decision';
import { PolicyValidationError, preparsedCount } from '../../src/policy';
import { VIEWERS_WRITE_REFUSAL } from '../helpers/policy-tests';
import { citadel, policiesDir, resourceRequest, userIds } from './citadel';

const directory = citadel();

describe('openLocalAuthorizer', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'outpost-open-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('stops start-up on an invalid policy with a file:line message', () => {
    cpSync(join(policiesDir, 'rbac'), join(tmp, 'rbac'), { recursive: true });
    writeFileSync(join(tmp, 'rbac', 'rbac.cedar'), 'permit(principal, action, resource)\nwhen { resource.owner == principal };\n');
    expect(() => openLocalAuthorizer({ policiesDir: tmp, policyName: 'rbac', directory })).toThrow(PolicyValidationError);
    expect(() => openLocalAuthorizer({ policiesDir: tmp, policyName: 'rbac', directory })).toThrow(/rbac\.cedar:2: .*attribute `owner`/);
  });

  it('stops start-up on a policy failing its own tests, naming the failing cases, and holds no compiled copy', () => {
    cpSync(join(policiesDir, 'rbac'), join(tmp, 'rbac'), { recursive: true });
    const text = readFileSync(join(tmp, 'rbac', 'rbac.cedar'), 'utf8');
    writeFileSync(join(tmp, 'rbac', 'rbac.cedar'), text.replace('principal in Outpost::Role::"editor"', 'principal in Outpost::Role::"viewer"'));
    const compiled = preparsedCount();
    expect(() => openLocalAuthorizer({ policiesDir: tmp, policyName: 'rbac', directory })).toThrow(PolicyTestsFailedError);
    expect(() => openLocalAuthorizer({ policiesDir: tmp, policyName: 'rbac', directory })).toThrow(
      VIEWERS_WRITE_REFUSAL,
    );
    expect(preparsedCount()).toBe(compiled);
  });

  it('refuses a policy name that could leave the policies folder', () => {
    expect(() => openLocalAuthorizer({ policiesDir, policyName: '../data', directory })).toThrow('invalid policy name "../data"');
  });

  it('reads a live directory through a getter and releases its policy on close', async () => {
    const before = preparsedCount();
    let live = directory;
    const authorizer = openLocalAuthorizer({ policiesDir, policyName: 'rbac', directory: () => live });
    expect(authorizer.policy.name).toBe('rbac');
    const rick = userIds(directory).rick;
    expect((await authorizer.authorize(resourceRequest('rbac', rick, 'DELETE', 'x'))).allowed).toBe(true);
    live = { ...directory, revision: 2, users: directory.users.filter((u) => u.id !== rick) };
    expect((await authorizer.authorize(resourceRequest('rbac', rick, 'DELETE', 'x'))).allowed).toBe(false);
    await authorizer.close();
    expect(preparsedCount()).toBe(before);
  });
});
