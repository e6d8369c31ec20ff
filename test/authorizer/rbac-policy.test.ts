import { openLocalAuthorizer, type OpenedLocalAuthorizer } from '../../src/authorizer';
import { citadel, policiesDir, resourceRequest, userIds } from './citadel';

const directory = citadel();
const users = userIds(directory);
let authorizer: OpenedLocalAuthorizer;
beforeAll(() => {
  authorizer = openLocalAuthorizer({ policiesDir, policyName: 'rbac', directory });
});
afterAll(() => authorizer.close());

// viewer GET; editor GET, PUT, POST; admin all — so DELETE is Rick's alone.
const matrix: Record<keyof typeof users, Record<string, boolean>> = {
  rick: { GET: true, PUT: true, POST: true, DELETE: true },
  morty: { GET: true, PUT: true, POST: true, DELETE: false },
  summer: { GET: true, PUT: true, POST: true, DELETE: false },
  beth: { GET: true, PUT: false, POST: false, DELETE: false },
  jerry: { GET: true, PUT: false, POST: false, DELETE: false },
};
const cases = Object.entries(matrix).flatMap(([user, row]) => Object.entries(row).map(([method, allowed]) => [user, method, allowed] as const));

describe('policies/rbac', () => {
  it.each(cases)('%s %s → allowed %s', async (user, method, allowed) => {
    const decision = await authorizer.authorize(resourceRequest('rbac', users[user as keyof typeof users], method, 'x'));
    expect(decision.allowed).toBe(allowed);
    expect(decision.policyPath).toBe(`rbac.${method}`);
    expect(decision.reasons.length > 0).toBe(allowed);
  });

  it('denies a principal missing from the directory without evaluating', async () => {
    const decision = await authorizer.authorize(resourceRequest('rbac', 'no-such-user', 'GET', 'x'));
    expect(decision).toMatchObject({ allowed: false, reasons: [], cached: false });
  });

  it('denies a method the schema does not know', async () => {
    expect((await authorizer.authorize(resourceRequest('rbac', users.rick, 'PATCH', 'x'))).allowed).toBe(false);
  });

  it('names the deciding policy by file and line', async () => {
    const decision = await authorizer.authorize(resourceRequest('rbac', users.rick, 'DELETE', 'y'));
    expect(decision.reasons).toEqual(['rbac.cedar:19']);
  });
});
