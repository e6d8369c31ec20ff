import { search, SEARCH_LIMITS, type SearchQuestion } from '../../src/decision';
import type { SearchRequest } from '../../src/decision-protocol';
import type { DirectoryData } from '../../src/directory';
import type { PolicySchemaInfo } from '../../src/policy';

// The search core's bounds and paging, with a decision that permits every even-numbered
// user and a clock the test moves: no policy, no server, no real time.

const users = Array.from({ length: 30 }, (_, i) => ({ id: `u${String(i).padStart(2, '0')}`, email: `u${i}@example.com`, name: `User ${i}`, roles: [] }));
const directory: DirectoryData = { revision: 1, roles: [], users, resources: [] };
const schema: PolicySchemaInfo = {
  namespace: 'Test',
  userType: 'User',
  roleType: 'Role',
  entityTypes: new Map([['User', new Map()], ['Doc', new Map()]]),
  actions: new Map([['read', { principalTypes: new Set(['Test::User']), resourceTypes: new Set(['Test::Doc']) }]]),
};
const permitsEven = (q: SearchQuestion) => Number(q.subject.id.slice(1)) % 2 === 0;
const evens = users.filter((_, i) => i % 2 === 0).map((u) => u.id);
const ask: SearchRequest = { subject: { type: 'user' }, action: { name: 'read' }, resource: { type: 'Doc', id: 'd1' } };

/** Every page of a search, following next_token, with the given deps. */
function walk(request: SearchRequest, deps: Omit<Parameters<typeof search>[2], 'directory' | 'schema' | 'decide'>) {
  const pages = [];
  let token = '';
  do {
    const outcome = search('subject', { ...request, page: { ...request.page, ...(token ? { token } : {}) } }, { directory, schema, decide: permitsEven, ...deps });
    pages.push(outcome);
    token = outcome.response.page?.next_token ?? '';
  } while (token);
  return pages;
}

describe('search bounds', () => {
  it('names its limits', () => {
    expect(SEARCH_LIMITS).toEqual({ maxCandidates: 10_000, timeBudgetMs: 100 });
  });

  it('ends a page after maxCandidates evaluations, with a token that resumes after the last one', () => {
    const pages = walk(ask, { now: () => 0, limits: { maxCandidates: 7 } });
    expect(pages.map((p) => p.evaluated)).toEqual([7, 7, 7, 7, 2]);
    expect(pages.slice(0, 4).every((p) => p.stoppedBy === 'candidates')).toBe(true);
    expect(pages.flatMap((p) => p.response.results.map((r) => (r as { id: string }).id))).toEqual(evens);
  });

  it('ends a page when the time budget is spent, after at least one evaluation', () => {
    let clock = 0;
    // Each reading of the clock moves it 100 ms: a 250 ms budget allows three evaluations.
    const pages = walk(ask, { now: () => (clock += 100), limits: { timeBudgetMs: 250 } });
    expect(pages[0]!.stoppedBy).toBe('time');
    expect(pages[0]!.evaluated).toBe(3);
    expect(pages.flatMap((p) => p.response.results.map((r) => (r as { id: string }).id))).toEqual(evens);
    const stalled = walk(ask, { now: () => (clock += 1_000_000), limits: { timeBudgetMs: 1 } });
    expect(stalled.every((p) => p.evaluated === 1)).toBe(true);
    expect(stalled.flatMap((p) => p.response.results.map((r) => (r as { id: string }).id))).toEqual(evens);
  });

  it('stops at page.limit results and omits total unless one page held everything', () => {
    const pages = walk({ ...ask, page: { limit: 4 } }, { now: () => 0 });
    expect(pages.map((p) => p.response.results.length)).toEqual([4, 4, 4, 3]);
    expect(pages[0]!.response.page).toEqual({ next_token: expect.any(String), count: 4 });
    expect(pages[3]!.response.page).toEqual({ next_token: '', count: 3 });
    const whole = search('subject', { ...ask, page: { limit: 100 } }, { directory, schema, decide: permitsEven, now: () => 0 });
    expect(whole.response.page).toEqual({ next_token: '', count: 15, total: 15 });
  });

  it('adds a page object to an unpaged request only when it ends early', () => {
    const unbounded = search('subject', ask, { directory, schema, decide: permitsEven, now: () => 0 });
    expect(unbounded.response).toEqual({ results: evens.map((id) => ({ type: 'user', id })) });
    const bounded = search('subject', ask, { directory, schema, decide: permitsEven, now: () => 0, limits: { maxCandidates: 10 } });
    expect(bounded.response.page?.next_token).not.toBe('');
  });
});

describe('search candidates', () => {
  it('asks about each supplied resource with its own properties over the request’s', () => {
    const asked: SearchQuestion[] = [];
    const outcome = search(
      'resource',
      { subject: { type: 'user', id: 'u00' }, action: { name: 'read' }, resource: { type: 'Doc', properties: { state: 'draft', owner: 'x' } } },
      {
        directory,
        schema,
        now: () => 0,
        candidates: [{ id: 'd2', properties: { owner: 'u00' } }, { id: 'd1' }, { id: 'd2', properties: { owner: 'u01' } }],
        decide: (q) => {
          asked.push(q);
          return q.resource.properties?.owner === 'u01';
        },
      },
    );
    expect(asked.map((q) => [q.resource.id, q.resource.properties])).toEqual([
      ['d1', { state: 'draft', owner: 'x' }],
      ['d2', { state: 'draft', owner: 'u01' }],
    ]);
    expect(outcome.response).toEqual({ results: [{ type: 'Doc', id: 'd2' }] });
  });

  it('offers only the actions the schema applies to a user and the resource type', () => {
    const asked: string[] = [];
    const decide = (q: SearchQuestion) => (asked.push(q.action.name), true);
    const doc = search('action', { subject: { type: 'user', id: 'u00' }, resource: { type: 'Doc', id: 'd1' } }, { directory, schema, decide, now: () => 0 });
    expect(doc.response).toEqual({ results: [{ name: 'read' }] });
    const other = search('action', { subject: { type: 'user', id: 'u00' }, resource: { type: 'User', id: 'u01' } }, { directory, schema, decide, now: () => 0 });
    expect(other.response).toEqual({ results: [] });
    expect(asked).toEqual(['read']);
  });
});
