import { openLocalAuthorizer, type AuthorizationRequest, type OpenedLocalAuthorizer } from '../../src/authorizer';
import { citadel, policiesDir, userIds } from './citadel';

const directory = citadel();
const users = userIds(directory);
let authorizer: OpenedLocalAuthorizer;
beforeAll(() => {
  authorizer = openLocalAuthorizer({ policiesDir, policyName: 'todo', directory });
});
afterAll(() => authorizer.close());

type User = keyof typeof users;
const ALL: User[] = ['rick', 'morty', 'summer', 'beth', 'jerry'];

function todo(user: string, action: string, owner?: string): AuthorizationRequest {
  return {
    principal: user,
    action,
    resource: { type: 'Todo', id: owner ? 't-1' : '*', ...(owner ? { attributes: { owner } } : {}) },
    policyPath: `todo.${action}`,
  };
}
const allowed = async (request: AuthorizationRequest) => (await authorizer.authorize(request)).allowed;

describe('policies/todo', () => {
  it.each(ALL)('list: any directory user (%s)', async (user) => {
    expect(await allowed(todo(users[user], 'list'))).toBe(true);
  });

  it.each(ALL)('read_user: any directory user (%s)', async (user) => {
    const request = { principal: users[user], action: 'read_user', resource: { type: 'User', id: users.beth }, policyPath: 'todo.read_user' };
    expect(await allowed(request)).toBe(true);
  });

  it.each([
    ['rick', true],
    ['morty', true],
    ['summer', true],
    ['beth', false],
    ['jerry', false],
  ] as const)('create: editor and above (%s → %s)', async (user, expected) => {
    expect(await allowed(todo(users[user], 'create'))).toBe(expected);
  });

  // Todo owned by Beth (a viewer) and by Summer (an editor).
  it.each([
    ['beth', 'beth', true, true], // owner
    ['summer', 'summer', true, true], // owner
    ['jerry', 'beth', false, false], // viewer, not owner
    ['summer', 'beth', false, false], // editor, not owner
    ['morty', 'summer', false, false], // editor, not owner
    ['rick', 'beth', true, true], // admin (and evil_genius)
  ] as const)('%s on a todo owned by %s: update %s, delete %s', async (user, owner, update, del) => {
    expect(await allowed(todo(users[user], 'update', users[owner]))).toBe(update);
    expect(await allowed(todo(users[user], 'delete', users[owner]))).toBe(del);
  });

  it('evil_genius alone may update but not delete others’ todos', async () => {
    const changed = { ...directory, revision: 2, users: [...directory.users, { id: 'eg', email: 'eg@x.org', name: 'EG', roles: ['evil_genius'] }] };
    const local = openLocalAuthorizer({ policiesDir, policyName: 'todo', directory: changed });
    try {
      expect((await local.authorize(todo('eg', 'update', users.beth))).allowed).toBe(true);
      expect((await local.authorize(todo('eg', 'delete', users.beth))).allowed).toBe(false);
      expect((await local.authorize(todo('eg', 'create'))).allowed).toBe(false);
    } finally {
      await local.close();
    }
  });

  it('a todo without an owner is nobody’s: only admin may update or delete it', async () => {
    expect(await allowed(todo(users.morty, 'update'))).toBe(false);
    expect(await allowed(todo(users.rick, 'delete'))).toBe(true);
  });

  it('denies users missing from the directory, even for list', async () => {
    expect(await allowed(todo('stranger', 'list'))).toBe(false);
    expect(await allowed(todo('stranger', 'update', 'stranger'))).toBe(false);
  });
});
