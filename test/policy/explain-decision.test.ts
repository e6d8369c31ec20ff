import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPolicyImage, compilePolicyImage, explainDecision, MAX_REASON_COMMENT, NO_POLICY_PERMITS, policyComment, readPolicyFolder } from '../../src/policy';

const rbacText = readFileSync(join(__dirname, '../../policies/rbac/rbac.cedar'), 'utf8');

describe('explainDecision', () => {
  it("names each determining policy with the first line of the comment block right above it", () => {
    const files = { 'rbac.cedar': rbacText };
    expect(explainDecision(files, { allowed: true, reasons: ['rbac.cedar:19'] })).toEqual([
      { policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' },
    ]);
    expect(explainDecision(files, { allowed: true, reasons: ['rbac.cedar:5', 'rbac.cedar:12'] })).toEqual([
      { policy: 'rbac.cedar:5', comment: 'Viewers (and everyone above them) may read.' },
      { policy: 'rbac.cedar:12', comment: 'Editors may also create and replace.' },
    ]);
  });

  it('says "no policy permits" for a deny no policy determined, and nothing for an allow without ids', () => {
    expect(explainDecision({}, { allowed: false, reasons: [] })).toEqual([{ policy: null, comment: NO_POLICY_PERMITS }]);
    expect(explainDecision({}, { allowed: true, reasons: [] })).toEqual([]);
  });

  it('takes the first line of a multi-line block, stops at a blank line, and gives "" without a comment or a file', () => {
    const text = ['// the file says this', '', '// Forbid the night shift.', '// (a second line)', 'forbid (principal, action, resource);', 'permit (principal, action, resource);'].join('\n');
    const files = { 'a.cedar': text };
    expect(policyComment(files, 'a.cedar:5')).toBe('Forbid the night shift.');
    expect(policyComment(files, 'a.cedar:6')).toBe('');
    expect(policyComment(files, 'missing.cedar:1')).toBe('');
    expect(policyComment(files, 'not an id')).toBe('');
    // Two policies on one line get `<file>:<line>:<offset>` ids.
    expect(policyComment(files, 'a.cedar:5:40')).toBe('Forbid the night shift.');
  });

  it(`cuts a comment line to ${MAX_REASON_COMMENT} characters`, () => {
    const files = { 'long.cedar': `// ${'x'.repeat(500)}\npermit (principal, action, resource);` };
    expect(policyComment(files, 'long.cedar:2')).toHaveLength(MAX_REASON_COMMENT);
  });

  it("explains what Cedar answers, forbids of a deny included", () => {
    const image = readPolicyFolder(join(__dirname, '../../policies/rbac'));
    const forbid = `${rbacText}\n// Nobody deletes the audit resource.\nforbid (principal, action, resource == Outpost::Resource::"audit");\n`;
    const policy = compilePolicyImage(createPolicyImage('rbac', { ...image.files, 'rbac.cedar': forbid }));
    try {
      const answer = policy.isAuthorized({
        principal: { type: 'Outpost::User', id: 'u' },
        action: 'DELETE',
        resource: { type: 'Outpost::Resource', id: 'audit' },
        entities: [],
      });
      expect(answer.allowed).toBe(false);
      const line = forbid.split('\n').findIndex((l) => l.startsWith('forbid')) + 1;
      expect(explainDecision({ 'rbac.cedar': forbid }, answer)).toEqual([{ policy: `rbac.cedar:${line}`, comment: 'Nobody deletes the audit resource.' }]);
    } finally {
      policy.release();
    }
  });
});
