import { openLocalAuthorizer, type OpenedLocalAuthorizer } from '../../src/authorizer';
import { citadel, policiesDir, resourceRequest, userIds } from './citadel';

const directory = citadel();
const users = userIds(directory);
let authorizer: OpenedLocalAuthorizer;
beforeAll(() => {
  authorizer = openLocalAuthorizer({ policiesDir, policyName: 'rebac', directory });
});
afterAll(() => authorizer.close());

// Relations from data/citadel-directory.json: o = owner (all), w = writer (GET/PUT/POST),
// r = reader (GET), - = none (denied whatever the role: Rick is admin but only relations count).
const relations: Record<string, Record<keyof typeof users, 'o' | 'w' | 'r' | '-'>> = {
  'mega-seed': { rick: 'o', morty: 'w', summer: 'r', beth: 'r', jerry: '-' },
  'space-cruiser': { rick: 'o', morty: 'r', summer: 'w', beth: '-', jerry: '-' },
  'portal-gun': { rick: 'o', morty: 'r', summer: '-', beth: '-', jerry: '-' },
  'time-crystal': { rick: '-', morty: 'o', summer: 'w', beth: '-', jerry: 'r' },
  'unknown-thing': { rick: '-', morty: '-', summer: '-', beth: '-', jerry: '-' },
};
const allowedMethods = { o: ['GET', 'PUT', 'POST', 'DELETE'], w: ['GET', 'PUT', 'POST'], r: ['GET'], '-': [] as string[] };
const cases = Object.entries(relations).flatMap(([resource, row]) =>
  Object.entries(row).flatMap(([user, relation]) =>
    ['GET', 'PUT', 'POST', 'DELETE'].map((method) => [resource, user, method, allowedMethods[relation].includes(method)] as const),
  ),
);

describe('policies/rebac', () => {
  it('covers 5 resources × 5 users × 4 methods', () => expect(cases).toHaveLength(100));

  it.each(cases)('%s: %s %s → allowed %s', async (resource, user, method, allowed) => {
    const decision = await authorizer.authorize(resourceRequest('rebac', users[user as keyof typeof users], method, resource));
    expect(decision.allowed).toBe(allowed);
  });

  it('ignores relations a caller claims in request attributes', async () => {
    const request = resourceRequest('rebac', users.jerry, 'DELETE', 'portal-gun');
    const decision = await authorizer.authorize({ ...request, resource: { ...request.resource, attributes: { owners: users.jerry } } });
    expect(decision.allowed).toBe(false);
  });
});
