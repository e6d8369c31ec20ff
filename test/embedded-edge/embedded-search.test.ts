import { join } from 'node:path';
import { searchEdge } from '../../src/authzen';
import { openEmbeddedAuthorizer, type EmbeddedAuthorizer } from '../../src/embedded-edge';
import { silentLogger } from '../../src/observability';
import { readPolicyFolder } from '../../src/policy';
import { removeDir, tempDir } from '../edge/edge-kit';
import { CREDENTIALS, root, startFakeControlPlane, userId, type FakeControlPlane } from '../edge/fake-control-plane';

// An app's embedded edge answers AuthZEN searches in-process: "which todos may Morty
// delete?" — the app passes the todos it holds (they live in its store, not the
// directory) and gets exactly those the policy lets him delete (policies/todo: editors
// their own, admins any).

let cp: FakeControlPlane;
let dir: string;
let authorizer: EmbeddedAuthorizer;
const ids: Record<string, string> = {};

beforeAll(async () => {
  cp = await startFakeControlPlane();
  cp.image = readPolicyFolder(join(root, 'policies', 'todo'));
  dir = tempDir();
  authorizer = await openEmbeddedAuthorizer({
    relayUrl: cp.url,
    ...CREDENTIALS,
    dataDir: dir,
    discoveryIntervalMs: 3_600_000,
    directorySyncIntervalMs: 3_600_000,
    fullSyncIntervalMs: 3_600_000,
    logger: silentLogger(),
  });
  for (const name of ['rick', 'morty', 'beth']) ids[name] = userId(cp.directory, name);
});

afterAll(async () => {
  await authorizer.close();
  await cp.close();
  removeDir(dir);
});

const todos = () => [
  { id: 't1', properties: { ownerID: ids.morty! } },
  { id: 't2', properties: { ownerID: ids.rick! } },
  { id: 't3', properties: { ownerID: 'morty@the-citadel.com' } },
];
// A frozen clock: the page's time budget (SEARCH_LIMITS.timeBudgetMs) never cuts it short on a busy machine.
const deletable = (who: string) =>
  searchEdge(authorizer.edge, 'resource', { subject: { type: 'user', id: who }, action: { name: 'can_delete_todo' }, resource: { type: 'todo' } }, { candidates: todos(), now: () => 0 });

describe('EmbeddedAuthorizer.search', () => {
  it('answers which of the app’s todos a user may delete, each decided as an evaluation would', async () => {
    expect((await deletable(ids.morty!)).response).toEqual({ results: [{ type: 'todo', id: 't1' }, { type: 'todo', id: 't3' }] });
    expect((await deletable(ids.rick!)).response.results.map((r) => (r as { id: string }).id)).toEqual(['t1', 't2', 't3']);
    expect((await deletable(ids.beth!)).response).toEqual({ results: [] });
    for (const todo of todos()) {
      const allowed = await authorizer.authorize({ principal: ids.morty!, action: 'can_delete_todo', resource: { type: 'todo', id: todo.id, attributes: todo.properties }, policyPath: 'todo.can_delete_todo' });
      expect(allowed.allowed).toBe(todo.id !== 't2');
    }
  });

  it('decides synchronously (authorizeNow) exactly as authorize does, and refuses another policy the same way', async () => {
    for (const todo of todos()) {
      const request = { principal: ids.morty!, action: 'can_delete_todo', resource: { type: 'todo', id: todo.id, attributes: todo.properties }, policyPath: 'todo.can_delete_todo' };
      const now = authorizer.authorizeNow(request);
      expect(now).toEqual(await authorizer.authorize(request));
      expect(now.allowed).toBe(todo.id !== 't2');
    }
    const elsewhere = { principal: ids.morty!, action: 'DELETE', resource: { type: 'Resource', id: 'x' }, policyPath: 'rbac.DELETE' };
    const refusal = { status: 503, code: 'authorizer_unavailable', detail: expect.stringContaining('holds policy todo, not rbac') };
    expect(() => authorizer.authorizeNow(elsewhere)).toThrow(expect.objectContaining(refusal));
    await expect(authorizer.authorize(elsewhere)).rejects.toMatchObject(refusal);
  });

  it('answers the actions a user may take on one todo, and says which state it used', async () => {
    const outcome = await searchEdge(authorizer.edge, 'action', { subject: { type: 'user', id: ids.morty! }, resource: { type: 'todo', id: 't2', properties: { ownerID: ids.rick! } } });
    expect(outcome.response.results.map((r) => (r as { name: string }).name).sort()).toEqual(['can_create_todo', 'can_read_todos']);
    expect(outcome.policyDigest).toBe(authorizer.edge.status().policy_digest);
    expect(outcome.directoryRevision).toBe(cp.directory.revision);
  });

  it('refuses a search without its input entity as a 400', async () => {
    await expect(searchEdge(authorizer.edge, 'resource', { subject: { type: 'user' }, action: { name: 'can_delete_todo' }, resource: { type: 'todo' } })).rejects.toMatchObject({
      status: 400,
      message: 'a resource search needs subject.id',
    });
  });
});
