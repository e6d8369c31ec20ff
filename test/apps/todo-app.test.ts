import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { openLocalAuthorizer } from '../../src/authorizer';
import { createTodoApp, openTodoStore, type Todo, type TodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { loadDirectorySeed } from '../../src/directory';
import { TOKEN_PATH } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { startAppFixture, USERS, type AppFixture } from './app-fixture';

type Name = keyof typeof USERS;

describe('todo sample app end to end (real IdP, real SQLite file, todo policy)', () => {
  let fixture: AppFixture;
  let store: TodoStore;
  let authorizer: Authorizer;
  let url: string;
  let dir: string;
  const tokens = {} as Record<Name, string>;

  beforeAll(async () => {
    fixture = await startAppFixture();
    dir = mkdtempSync(join(tmpdir(), 'outpost-todo-'));
    store = openTodoStore(join(dir, 'todo.db'));
    const { directory } = loadDirectorySeed(fixture.config.directorySeedFile);
    authorizer = openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: 'todo', directory });
    url = await fixture.serve(
      createTodoApp({
        authenticate: accessTokenMiddleware(fixture.config),
        authorizer,
        store,
        directory: () => directory,
        logger: silentLogger(),
        publicDir: join(fixture.config.projectRoot, 'src', 'apps', 'todo', 'public'),
        authUrl: fixture.idp.url,
      }),
    );
    for (const [name, user] of Object.entries(USERS)) tokens[name as Name] = (await fixture.idp.token(user.email)).access_token;
  });
  afterAll(async () => {
    await authorizer.close();
    store.close();
    await fixture.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (who: Name | undefined, method: string, path: string, body?: unknown, raw?: string) => {
    const headers: Record<string, string> = {};
    if (who) headers.authorization = `Bearer ${tokens[who]}`;
    if (body !== undefined || raw !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${url}${path}`, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  };
  const create = async (who: Name, title: string) => {
    const res = await call(who, 'POST', '/todos', { title });
    expect(res.status).toBe(201);
    return res.body as unknown as Todo;
  };

  it('lets editors and admins create todos they then own, and refuses viewers', async () => {
    const todo = await create('morty', 'Buy mega seeds');
    expect(todo).toMatchObject({ title: 'Buy mega seeds', completed: false, owner_id: USERS.morty.id });
    await create('rick', 'Fix the portal gun');
    const beth = await call('beth', 'POST', '/todos', { title: 'nope' });
    expect(beth).toEqual({ status: 403, body: { code: 'forbidden', message: 'Forbidden by policy todo.can_create_todo' } });
  });

  it('lists todos for every directory user', async () => {
    for (const who of Object.keys(USERS) as Name[]) {
      const res = await call(who, 'GET', '/todos');
      expect(res.status).toBe(200);
      expect((res.body!.todos as Todo[]).map((t) => t.title)).toEqual(expect.arrayContaining(['Buy mega seeds', 'Fix the portal gun']));
    }
  });

  it.each([
    ['morty', 200],
    ['rick', 200],
    ['summer', 403],
    ['beth', 403],
  ] as const)('update of a Morty todo by %s → %i (an editor who owns it, or an evil_genius)', async (who, status) => {
    const todo = await create('morty', `update test for ${who}`);
    const res = await call(who, 'PUT', `/todos/${todo.id}`, { completed: true });
    expect(res.status).toBe(status);
    if (status === 200) expect(res.body).toMatchObject({ id: todo.id, completed: true, title: todo.title });
    else expect(res.body).toEqual({ code: 'forbidden', message: 'Forbidden by policy todo.can_update_todo' });
  });

  it.each([
    ['summer', 403],
    ['jerry', 403],
    ['morty', 204],
  ] as const)('delete of a Morty todo by %s → %i (an editor who owns it, or an admin)', async (who, status) => {
    const todo = await create('morty', `delete test for ${who}`);
    const res = await call(who, 'DELETE', `/todos/${todo.id}`);
    expect(res.status).toBe(status);
    expect(store.get(todo.id) === undefined).toBe(status === 204);
  });

  it('lets an admin delete anyone\'s todo', async () => {
    const todo = await create('summer', 'Summer\'s chores');
    expect((await call('rick', 'DELETE', `/todos/${todo.id}`)).status).toBe(204);
    expect((await call('rick', 'DELETE', `/todos/${todo.id}`)).status).toBe(404);
  });

  it('with ?permissions says what the caller may do to each todo and why, exactly as the routes then decide', async () => {
    const todo = await create('morty', 'permissions test');
    type Permission = { allowed: boolean; why: string | null };
    for (const who of ['morty', 'summer', 'rick', 'beth'] as const) {
      const listed = await call(who, 'GET', '/todos?permissions');
      expect(listed.status).toBe(200);
      const permissions = listed.body!.permissions as { can_create_todo: Permission; todos: Record<string, { can_update_todo: Permission; can_delete_todo: Permission }> };
      expect(Object.keys(permissions.todos).sort()).toEqual((listed.body!.todos as Todo[]).map((t) => t.id).sort());
      const mine = permissions.todos[todo.id]!;
      // Each answer is what the route decides: the page's hint and the API agree.
      const update = await call(who, 'PUT', `/todos/${todo.id}`, { completed: false });
      expect({ who, update: mine.can_update_todo.allowed }).toEqual({ who, update: update.status === 200 });
      const create = await call(who, 'POST', '/todos', { title: `created by ${who}` });
      expect({ who, create: permissions.can_create_todo.allowed }).toEqual({ who, create: create.status === 201 });
      for (const p of [mine.can_update_todo, mine.can_delete_todo, permissions.can_create_todo]) {
        expect(p.why).toMatch(p.allowed ? /^permitted by todo\.cedar:\d+ \(.+\)$/ : /^denied: no policy permits$/);
      }
    }
    // Without the query, the list is as before.
    expect(Object.keys((await call('beth', 'GET', '/todos')).body!)).toEqual(['todos']);
  });

  it('with ?can=delete and ?can=update lists exactly the todos the policy lets a viewer, an editor and an admin change that way', async () => {
    const mortys = await create('morty', 'filter: Morty\'s');
    const summers = await create('summer', 'filter: Summer\'s');
    const ricks = await create('rick', 'filter: Rick\'s');
    const all = store.list().map((t) => t.id).sort();
    const ownedBy = (id: string) => store.list().filter((t) => t.owner_id === id).map((t) => t.id).sort();
    const listed = async (who: Name, can: string) => {
      const res = await call(who, 'GET', `/todos?can=${can}`);
      expect(res.status).toBe(200);
      return (res.body!.todos as Todo[]).map((t) => t.id).sort();
    };
    // Beth (viewer) may change nothing; Morty (editor) only his own; Rick (admin) deletes any,
    // and updates any as an evil_genius.
    expect(await listed('beth', 'delete')).toEqual([]);
    expect(await listed('beth', 'update')).toEqual([]);
    expect(await listed('morty', 'delete')).toEqual(ownedBy(USERS.morty.id));
    expect(await listed('morty', 'update')).toEqual(ownedBy(USERS.morty.id));
    expect(await listed('rick', 'delete')).toEqual(all);
    expect(await listed('rick', 'update')).toEqual(all);
    expect(ownedBy(USERS.morty.id)).toEqual(expect.arrayContaining([mortys.id]));
    expect(ownedBy(USERS.morty.id)).not.toContain(summers.id);
    expect(all).toEqual(expect.arrayContaining([mortys.id, summers.id, ricks.id]));
    // Every todo listed is one the route then lets through, and every one left out is refused.
    const morty = new Set(await listed('morty', 'delete'));
    for (const todo of [summers, ricks, mortys]) {
      expect({ todo: todo.title, deleted: (await call('morty', 'DELETE', `/todos/${todo.id}`)).status }).toEqual({ todo: todo.title, deleted: morty.has(todo.id) ? 204 : 403 });
    }
    // The filter and the flags come together; a filter it does not know is refused.
    const both = await call('morty', 'GET', '/todos?can=update&permissions');
    expect(Object.keys((both.body!.permissions as { todos: object }).todos).sort()).toEqual(ownedBy(USERS.morty.id));
    for (const bad of ['read', 'constructor', 'delete&can=update']) {
      expect(await call('morty', 'GET', `/todos?can=${bad}`)).toEqual({ status: 400, body: { code: 'invalid_query', message: 'can must be one of update, delete' } });
    }
  });

  it('serves GET /todos/export to the machine client only: its token has the api scope, a user token is 403 insufficient_scope', async () => {
    const { client_secret } = JSON.parse(readFileSync(join(fixture.idp.dataDir, 'idp', 'machine-client.json'), 'utf8')) as { client_secret: string };
    const machineToken = async (body: string) => {
      const issued = await fetch(`${fixture.idp.url}${TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`outpost-machine:${client_secret}`).toString('base64')}` },
        body,
      });
      expect(issued.status).toBe(200);
      return (await issued.json()) as { access_token: string; scope?: string };
    };
    const machine = await machineToken('grant_type=client_credentials&scope=api');
    expect(machine.scope).toBe('api');
    const get = (path: string, token?: string) => fetch(`${url}${path}`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

    const exported = await get('/todos/export', machine.access_token);
    expect(exported.status).toBe(200);
    expect(((await exported.json()) as { todos: Todo[] }).todos.map((t) => t.id).sort()).toEqual(store.list().map((t) => t.id).sort());

    const user = await get('/todos/export', tokens.rick);
    expect(user.status).toBe(403);
    expect(user.headers.get('www-authenticate')).toBe('Bearer realm="outpost", error="insufficient_scope", error_description="the access token lacks the api scope", scope="api"');
    expect(await user.json()).toEqual({ error: 'insufficient_scope', error_description: 'the access token lacks the api scope' });

    // A client gets the scopes it asks for: the same machine without `scope=api` is refused too.
    const unscoped = await get('/todos/export', (await machineToken('grant_type=client_credentials')).access_token);
    expect(unscoped.status).toBe(403);
    expect(unscoped.headers.get('www-authenticate')).toContain('error="insufficient_scope"');

    const none = await get('/todos/export');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="outpost"');
    // The scope admits the machine to its route only: to the directory it is no user, so the
    // routes that ask the policy refuse it.
    expect((await get('/todos', machine.access_token)).status).toBe(403);
  });

  it('refuses bad bodies with 400 and changes nothing', async () => {
    const todo = await create('morty', 'keep me');
    const cases = [
      [{}, /title/],
      [{ title: '' }, /title/],
      [{ title: 'x'.repeat(201) }, /200/],
      [{ title: 'ok', owner_id: 'someone-else' }, /owner_id/],
      [{ title: 42 }, /title/],
    ] as const;
    for (const [body, message] of cases) {
      const res = await call('morty', 'POST', '/todos', body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'invalid_body', message: expect.stringMatching(message) });
    }
    const update = await call('morty', 'PUT', `/todos/${todo.id}`, { completed: 'yes' });
    expect(update.status).toBe(400);
    expect((await call('morty', 'PUT', `/todos/${todo.id}`, {})).status).toBe(400);
    const notJson = await call('morty', 'POST', '/todos', undefined, '{"title": ');
    expect(notJson).toEqual({ status: 400, body: { code: 'bad_request', message: 'the request body is not valid JSON' } });
    const tooBig = await call('morty', 'POST', '/todos', undefined, JSON.stringify({ title: 'x'.repeat(5000) }));
    expect(tooBig.status).toBe(413);
    expect(store.get(todo.id)).toMatchObject({ title: 'keep me', completed: false });
  });

  it('answers unknown and malformed todo ids with 404', async () => {
    expect((await call('rick', 'PUT', '/todos/00000000-0000-0000-0000-000000000000', { completed: true })).status).toBe(404);
    const res = await call('rick', 'DELETE', '/todos/not-an-id');
    expect(res).toEqual({ status: 404, body: { code: 'not_found', message: 'no todo with id not-an-id' } });
  });

  it('requires a token on every API route', async () => {
    for (const [method, path] of [['GET', '/todos'], ['POST', '/todos'], ['GET', `/users/${USERS.rick.id}`]] as const) {
      expect((await call(undefined, method, path)).status).toBe(401);
    }
  });

  it('looks users up in the directory', async () => {
    expect(await call('jerry', 'GET', `/users/${USERS.rick.id}`)).toEqual({
      status: 200,
      body: { id: USERS.rick.id, email: USERS.rick.email, name: 'Rick Sanchez' },
    });
    expect((await call('jerry', 'GET', '/users/nobody')).status).toBe(404);
  });

  it("looks a user up by the AuthZEN Todo scenario's id (an identity) and by e-mail, as decisions resolve them", async () => {
    const rick = { status: 200, body: { id: USERS.rick.id, email: USERS.rick.email, name: 'Rick Sanchez' } };
    expect(await call('jerry', 'GET', '/users/CiRmZDA2MTRkMy1jMzlhLTQ3ODEtYjdiZC04Yjk2ZjVhNTEwMGQSBWxvY2Fs')).toEqual(rick);
    expect(await call('jerry', 'GET', `/users/${USERS.rick.email}`)).toEqual(rick);
  });

  it('serves the web page with a CSP that allows signing in at the IdP only', async () => {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/<title>Outpost todos<\/title>/);
    expect(res.headers.get('content-security-policy')).toContain(`connect-src 'self' ${fixture.idp.url}`);
    expect(await (await fetch(`${url}/config.json`)).json()).toEqual({ auth_url: fixture.idp.url, client_id: 'outpost-todo' });
  });

  it('serves oauth4webapi from its own origin (no CDN) as a JavaScript module', async () => {
    const res = await fetch(`${url}/vendor/oauth4webapi.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^(text|application)\/javascript/);
    expect(await res.text()).toContain('export async function authorizationCodeGrantRequest');
  });
});
