import { openLocalAuthorizer, type AuthorizationRequest, type OpenedLocalAuthorizer } from '../../src/authorizer';
import { InvalidPropertyError } from '../../src/decision';
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

function todo(user: string, action: string, owner?: string | number): AuthorizationRequest {
  return {
    principal: user,
    action,
    resource: { type: 'todo', id: owner === undefined ? '*' : 't-1', ...(owner === undefined ? {} : { attributes: { ownerID: owner } }) },
    policyPath: `todo.${action}`,
  };
}
const allowed = async (request: AuthorizationRequest) => (await authorizer.authorize(request)).allowed;

describe('policies/todo (the AuthZEN Todo scenario rules)', () => {
  it.each(ALL)('can_read_todos: any directory user (%s)', async (user) => {
    expect(await allowed(todo(users[user], 'can_read_todos'))).toBe(true);
  });

  it.each(ALL)('can_read_user: any directory user (%s)', async (user) => {
    const request = { principal: users[user], action: 'can_read_user', resource: { type: 'user', id: users.beth }, policyPath: 'todo.can_read_user' };
    expect(await allowed(request)).toBe(true);
  });

  it.each([
    ['rick', true],
    ['morty', true],
    ['summer', true],
    ['beth', false],
    ['jerry', false],
  ] as const)('can_create_todo: editor and above (%s → %s)', async (user, expected) => {
    expect(await allowed(todo(users[user], 'can_create_todo'))).toBe(expected);
  });

  it.each([
    ['summer', 'summer', true, true], // an editor who owns it
    ['beth', 'beth', false, false], // a viewer who owns it: viewers change nothing
    ['jerry', 'beth', false, false], // viewer, not owner
    ['summer', 'beth', false, false], // editor, not owner
    ['morty', 'summer', false, false], // editor, not owner
    ['rick', 'beth', true, true], // evil_genius updates, admin deletes
  ] as const)('%s on a todo owned by %s: update %s, delete %s', async (user, owner, update, del) => {
    expect(await allowed(todo(users[user], 'can_update_todo', users[owner]))).toBe(update);
    expect(await allowed(todo(users[user], 'can_delete_todo', users[owner]))).toBe(del);
  });

  it('evil_genius alone may update but not delete others’ todos; admin alone may delete but not update them', async () => {
    const changed = {
      ...directory,
      revision: 2,
      users: [
        ...directory.users,
        { id: 'eg', email: 'eg@x.org', name: 'EG', roles: ['evil_genius'] },
        { id: 'ad', email: 'ad@x.org', name: 'AD', roles: ['admin'] },
      ],
    };
    const local = openLocalAuthorizer({ policiesDir, policyName: 'todo', directory: changed });
    try {
      const decide = async (request: AuthorizationRequest) => (await local.authorize(request)).allowed;
      expect(await decide(todo('eg', 'can_update_todo', users.beth))).toBe(true);
      expect(await decide(todo('eg', 'can_delete_todo', users.beth))).toBe(false);
      expect(await decide(todo('eg', 'can_create_todo'))).toBe(false);
      expect(await decide(todo('ad', 'can_update_todo', users.beth))).toBe(false);
      expect(await decide(todo('ad', 'can_delete_todo', users.beth))).toBe(true);
    } finally {
      await local.close();
    }
  });

  it('a todo without an owner is nobody’s: only an evil genius updates it, only an admin deletes it', async () => {
    expect(await allowed(todo(users.morty, 'can_update_todo'))).toBe(false);
    expect(await allowed(todo(users.rick, 'can_update_todo'))).toBe(true);
    expect(await allowed(todo(users.rick, 'can_delete_todo'))).toBe(true);
  });

  it('names users by any identity: e-mail, the scenario’s Dex id, the directory id — for subject, user resource and owner alike', async () => {
    const morty = directory.users.find((u) => u.id === users.morty)!;
    const dexId = morty.identities![0]!;
    expect(await allowed(todo(dexId, 'can_update_todo', morty.email))).toBe(true);
    expect(await allowed(todo(morty.email, 'can_delete_todo', dexId))).toBe(true);
    expect(await allowed(todo(dexId, 'can_update_todo', 'summer@the-smiths.com'))).toBe(false);
    const readRick = { principal: dexId, action: 'can_read_user', resource: { type: 'user', id: 'rick@the-citadel.com' }, policyPath: 'todo.can_read_user' };
    expect(await allowed(readRick)).toBe(true);
  });

  it('accepts the namespaced type, and denies a type the schema does not declare (Todo is not todo)', async () => {
    const request = todo(users.morty, 'can_create_todo');
    expect(await allowed({ ...request, resource: { type: 'Outpost::todo', id: '*' } })).toBe(true);
    expect(await allowed({ ...request, resource: { type: 'Todo', id: '*' } })).toBe(false);
    expect(await allowed({ ...request, resource: { type: 'Other::todo', id: '*' } })).toBe(false);
  });

  it('refuses an owner of the wrong JSON type as the caller’s mistake (400 invalid_property), not an outage', async () => {
    const refusal = authorizer.authorize(todo(users.morty, 'can_update_todo', 5));
    await expect(refusal).rejects.toBeInstanceOf(InvalidPropertyError);
    await expect(refusal).rejects.toMatchObject({ status: 400, code: 'invalid_property', message: 'resource property "ownerID" must be a string (an entity id), not 5' });
  });

  it('denies users missing from the directory, even for can_read_todos', async () => {
    expect(await allowed(todo('stranger', 'can_read_todos'))).toBe(false);
    expect(await allowed(todo('stranger', 'can_update_todo', 'stranger'))).toBe(false);
  });
});
