import express, { type Request, type RequestHandler } from 'express';
import { AuthorizerUnavailableError, type AuthorizationRequest, type Authorizer } from '../../authorizer';
import { reasonText } from '../../edge';
import { TODO_CLIENT_ID, findProjectRoot } from '../../config';
import { resolveUserId, type DirectoryData } from '../../directory';
import { BadRequestError, HttpError, httpError, NotFoundError, createApp, finishApp, OPENAPI_PATH, parseBody, serveBrowserModules, serveOpenApi, jsonBody } from '../../http';
import { serveProbes } from '../app-health';
import { TODO_OPENAPI } from './todo-openapi';
import { requirePermission, requireScope } from '@outpost/express-authz';
import type { Logger } from '../../observability';
import { storageErrorTranslator } from '../../sql';
import { TODO_ID, createTodoBody, updateTodoBody } from './todo-schemas';
import type { Todo, TodoStore } from './todo-store';

export interface TodoAppDeps {
  readonly authenticate: RequestHandler;
  readonly authorizer: Authorizer;
  readonly store: TodoStore;
  /** Directory used to answer `GET /users/:id` (names and e-mails for the page). */
  readonly directory: () => DirectoryData;
  readonly logger: Logger;
  /** Policy evaluated for every route; `todo` unless a variant is configured. */
  readonly policyName?: string;
  /** Folder with the small web page served at `/`; none when absent. */
  readonly publicDir?: string;
  /** `{auth_url}`: the page signs in there, so the CSP must let it connect. */
  readonly authUrl?: string;
}

const POLICY = 'todo';

/** Todos whose buttons `GET /todos?permissions` explains, at most (two decisions each); the rest get no entry (docs/reference/limits.md). */
export const MAX_EXPLAINED_TODOS = 500;

/** Loads the todo named in the path (404 when absent) and keeps it for the handler. */
const loadTodo =
  (store: TodoStore): RequestHandler =>
  (req, res, next) => {
    const id = String(req.params.id);
    const todo = TODO_ID.test(id) ? store.get(id) : undefined;
    if (!todo) throw new NotFoundError(`no todo with id ${id}`);
    res.locals.todo = todo;
    next();
  };

const theTodo = (req: Request): Todo => req.res?.locals.todo as Todo;

/** `GET /todos?can=<verb>`: the action a todo must allow the caller for the list to show it. */
export const LIST_FILTERS: Readonly<Record<string, string>> = { update: 'can_update_todo', delete: 'can_delete_todo' };

/** The scope of the machine client's `client_credentials` token, which `GET /todos/export` requires. */
export const EXPORT_SCOPE = 'api';

/** What the page shows for one button: whether its user may press it, and why (null when the authorizer cannot say). */
export interface Permission {
  readonly allowed: boolean;
  readonly why: string | null;
}

/** Every button of the page for one user: add, and each todo's update and delete. */
export interface TodoPermissions {
  readonly can_create_todo: Permission;
  readonly todos: Readonly<Record<string, { readonly can_update_todo: Permission; readonly can_delete_todo: Permission }>>;
}

/**
 * The todo sample: a small REST API whose rules live in `policies/todo`, named as in the
 * OpenID AuthZEN Todo interop scenario — anyone in the directory reads, editors create and
 * change their own todos, evil geniuses update any, admins delete any. Ownership comes from the store, roles from the directory, identity from the token.
 */
export function createTodoApp(deps: TodoAppDeps): express.Express {
  const policy = deps.policyName ?? POLICY;
  const may = (action: string, resource: (req: Request) => { type: string; id: string; attributes?: Record<string, string> }) =>
    requirePermission(deps.authorizer, { policy, action, resource }, { forwardErrors: true });
  // The AuthZEN Todo scenario's names: a `todo` carries its owner as `ownerID`.
  const asTodo = (req: Request) => {
    const todo = theTodo(req);
    return { type: 'todo', id: todo.id, attributes: { ownerID: todo.owner_id } };
  };
  const collection = () => ({ type: 'todo', id: '*' });
  const auth = deps.authenticate;
  const json = jsonBody(4 * 1024);

  const connectSrc = deps.authUrl ? ["'self'", deps.authUrl] : ["'self'"];
  const app = createApp(deps.logger, { contentSecurityPolicy: { directives: { connectSrc } } });
  if (deps.publicDir) {
    serveBrowserModules(app, findProjectRoot());
    app.use(express.static(deps.publicDir, { index: 'index.html' }));
  }
  // The page learns where and as whom to sign in from here rather than from hard-coded values.
  app.get('/config.json', (_req, res) => {
    res.json({ auth_url: deps.authUrl ?? null, client_id: TODO_CLIENT_ID });
  });
  serveProbes(app, deps.authorizer);
  app.get(OPENAPI_PATH, serveOpenApi(TODO_OPENAPI));

  /** One button's answer, with its reasons where the authorizer gives them; a failure is a 503, never an allow. */
  async function permission(request: AuthorizationRequest): Promise<Permission> {
    try {
      if (!deps.authorizer.explain) return { allowed: (await deps.authorizer.authorize(request)).allowed === true, why: null };
      const { allowed, reasons } = await deps.authorizer.explain(request);
      return { allowed: allowed === true, why: reasonText(allowed === true, reasons) };
    } catch (err) {
      if (err instanceof HttpError) throw err;
      throw Object.assign(new AuthorizerUnavailableError(`could not decide ${request.policyPath}`), { cause: err });
    }
  }

  /** What `sub` may do on the page now: the same questions the routes ask, asked ahead. */
  async function permissionsOf(sub: string, todos: readonly Todo[], requestId: string): Promise<TodoPermissions> {
    const ask = (action: string, resource: AuthorizationRequest['resource']) => permission({ principal: sub, action, resource, policyPath: `${policy}.${action}`, requestId });
    const perTodo: Record<string, { can_update_todo: Permission; can_delete_todo: Permission }> = {};
    for (const todo of todos.slice(0, MAX_EXPLAINED_TODOS)) {
      const resource = { type: 'todo', id: todo.id, attributes: { ownerID: todo.owner_id } };
      perTodo[todo.id] = { can_update_todo: await ask('can_update_todo', resource), can_delete_todo: await ask('can_delete_todo', resource) };
    }
    return { can_create_todo: await ask('can_create_todo', collection()), todos: perTodo };
  }

  /**
   * The todos `sub` may `action`: the policy filters the list, one decision per todo in the
   * store (in-process and from the decision cache when warm), a deny or a failure leaving the
   * todo out — never in. A failure to decide is a 503, as on every route.
   */
  async function filterBy(sub: string, action: string, todos: readonly Todo[], requestId: string): Promise<Todo[]> {
    const decide = deps.authorizer.authorizeNow?.bind(deps.authorizer);
    const shown: Todo[] = [];
    for (const todo of todos) {
      const request: AuthorizationRequest = { principal: sub, action, resource: { type: 'todo', id: todo.id, attributes: { ownerID: todo.owner_id } }, policyPath: `${policy}.${action}`, requestId };
      let allowed: unknown;
      try {
        ({ allowed } = decide ? decide(request) : await deps.authorizer.authorize(request));
      } catch (err) {
        if (err instanceof HttpError) throw err;
        throw Object.assign(new AuthorizerUnavailableError(`could not decide ${request.policyPath}`), { cause: err });
      }
      if (allowed === true) shown.push(todo);
    }
    return shown;
  }

  // `?can=update|delete` lists only the todos the caller may change that way: the policy
  // filters, not app code. `?permissions` adds what the caller may do to each todo and why, so
  // the page asks once per render; the routes still decide every change themselves.
  app.get('/todos', auth, may('can_read_todos', collection), async (req, res) => {
    let todos = deps.store.list();
    const sub = (req as { auth?: { sub: string } }).auth!.sub;
    if (req.query.can !== undefined) {
      const can = req.query.can;
      const action = typeof can === 'string' && Object.hasOwn(LIST_FILTERS, can) ? LIST_FILTERS[can] : undefined;
      if (action === undefined) {
        throw new BadRequestError(`can must be one of ${Object.keys(LIST_FILTERS).join(', ')}`, 'invalid_query');
      }
      todos = await filterBy(sub, action, todos, req.id);
    }
    if (req.query.permissions === undefined) {
      res.json({ todos });
      return;
    }
    res.json({ todos, permissions: await permissionsOf(sub, todos, req.id) });
  });
  // For a machine, not a user: the `client_credentials` token of `outpost-machine` (a backup
  // job, say) acts for no user, so the directory has no roles for it and no policy names it;
  // what it was granted is its scope. User tokens lack `api`: 403 insufficient_scope.
  app.get('/todos/export', auth, requireScope(EXPORT_SCOPE, { forwardErrors: true }), (_req, res) => {
    res.json({ todos: deps.store.list() });
  });
  app.post('/todos', auth, json, may('can_create_todo', collection), (req, res) => {
    const { title } = parseBody(createTodoBody, req.body, { code: 'invalid_body' });
    const sub = (req as { auth?: { sub: string } }).auth!.sub;
    res.status(201).json(deps.store.create(sub, title));
  });
  app.put('/todos/:id', auth, json, loadTodo(deps.store), may('can_update_todo', asTodo), (req, res) => {
    const changes = parseBody(updateTodoBody, req.body, { code: 'invalid_body' });
    const updated = deps.store.update(theTodo(req).id, changes);
    if (!updated) throw httpError('conflict', 'the todo was deleted meanwhile');
    res.json(updated);
  });
  app.delete('/todos/:id', auth, loadTodo(deps.store), may('can_delete_todo', asTodo), (req, res) => {
    if (!deps.store.remove(theTodo(req).id)) throw httpError('conflict', 'the todo was deleted meanwhile');
    res.status(204).end();
  });
  app.get('/users/:id', auth, may('can_read_user', (req) => ({ type: 'user', id: String(req.params.id) })), (req, res) => {
    // Named by id, e-mail or another identity (the scenario's Dex ids), as decisions name users.
    const directory = deps.directory();
    const id = resolveUserId(directory, String(req.params.id));
    const user = directory.users.find((u) => u.id === id);
    if (!user) throw new NotFoundError(`no user ${String(req.params.id)}`);
    res.json({ id: user.id, email: user.email, name: user.name });
  });

  // The todos are in SQLite: a locked or full file is a 503 or 507, as at the control plane.
  return finishApp(app, deps.logger, 'api', [storageErrorTranslator]);
}
