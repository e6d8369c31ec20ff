import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { openLocalAuthorizer } from '../../src/authorizer';
import { createRbacApp } from '../../src/apps/rbac';
import { RBAC_OPENAPI, RBAC_ROUTES } from '../../src/apps/rbac/rbac-openapi';
import { createTodoApp, openTodoStore, type TodoStore } from '../../src/apps/todo';
import { TODO_OPENAPI, TODO_ROUTES } from '../../src/apps/todo/todo-openapi';
import type { Authorizer } from '../../src/authorizer';
import { CONTROL_PLANE_OPENAPI, CONTROL_PLANE_ROUTES } from './control-plane-routes';
import { loadDirectorySeed } from '../../src/directory';
import type { Edge } from '../../src/sidecar';
import { EDGE_OPENAPI, EDGE_ROUTES } from '../../src/sidecar/edge-openapi';
import { baseUrl, close, listen } from '../../src/http';
import { idpRouters } from '../../src/idp-server';
import { silentLogger } from '../../src/observability';
import { IDP_OPENAPI, IDP_ROUTES } from '../../src/idp-server';
import { startAppFixture, USERS, type AppFixture } from '../apps/app-fixture';
import { makeSyncedEdge, removeDir, tempDir } from '../edge/edge-kit';
import { startFakeControlPlane, type FakeControlPlane } from '../edge/fake-control-plane';
import { CITADEL, startIdpFixture, type IdpFixture } from '../idp/idp-fixture';
import { startRelayKit, type RelayKit } from '../relay/relay-kit';
import { expectConforms, expectEveryRouteServed, expectServedDocument } from './conformance';

const JSON_TYPE = { 'content-type': 'application/json' };
const FORM_TYPE = { 'content-type': 'application/x-www-form-urlencoded' };
const PASSWORD = 'V@erySecre#t123!';

describe('IdP /openapi.json', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startIdpFixture({ LOGIN_MAX_FAILURES: '1000' }, { routers: idpRouters() });
  });
  afterAll(() => f.close());

  it('is the document built from the route table, and every route in it is served', async () => {
    await expectServedDocument(f.url, IDP_OPENAPI, IDP_ROUTES);
    await expectEveryRouteServed(f.url, IDP_ROUTES);
  });

  it('describes what the IdP really answers', async () => {
    const token = (body: string, headers = JSON_TYPE) => expectConforms(f.url, IDP_ROUTES, { method: 'POST', path: '/api/v1/idp/token', headers, body });
    const ok = await token(JSON.stringify({ username: CITADEL[0].email, password: PASSWORD }));
    expect(ok.status).toBe(200);
    expect((await token('{"username":')).status).toBe(400);
    expect((await token(JSON.stringify({ username: CITADEL[0].email, password: 'nope' }))).status).toBe(401);
    expect((await token('x', { 'content-type': 'text/plain' })).status).toBe(415);
    const form = new URLSearchParams({ grant_type: 'password', client_id: f.config.idp.clientId, username: CITADEL[1].email, password: PASSWORD }).toString();
    expect((await token(form, FORM_TYPE)).status).toBe(200);
    expect((await token('grant_type=magic', FORM_TYPE)).status).toBe(400);
    const accessToken = (ok.body as { access_token: string }).access_token;
    expect((await expectConforms(f.url, IDP_ROUTES, { method: 'GET', path: '/userinfo', headers: { authorization: `Bearer ${accessToken}` } })).status).toBe(200);
    expect((await expectConforms(f.url, IDP_ROUTES, { method: 'GET', path: '/userinfo' })).status).toBe(401);
    expect((await expectConforms(f.url, IDP_ROUTES, { method: 'GET', path: '/.well-known/openid-configuration' })).status).toBe(200);
    expect((await expectConforms(f.url, IDP_ROUTES, { method: 'GET', path: '/.well-known/jwks.json' })).status).toBe(200);
    expect((await expectConforms(f.url, IDP_ROUTES, { method: 'GET', path: '/authorize?client_id=nobody' })).status).toBe(400);
    const revoke = (body: string) => expectConforms(f.url, IDP_ROUTES, { method: 'POST', path: '/revoke', headers: FORM_TYPE, body });
    expect((await revoke('')).status).toBe(400);
    expect((await revoke('token=x&client_id=nobody')).status).toBe(401);
    expect((await revoke('token=never-issued&client_id=outpost-todo')).status).toBe(200);
    expect((await expectConforms(f.url, IDP_ROUTES, { method: 'GET', path: '/healthz' })).status).toBe(200);
  });
});

describe('control plane /openapi.json', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit();
  });
  afterAll(() => kit.stop());

  it('is the document built from the route table, and every route in it is served', async () => {
    await expectServedDocument(kit.url, CONTROL_PLANE_OPENAPI, CONTROL_PLANE_ROUTES);
    await expectEveryRouteServed(kit.url, CONTROL_PLANE_ROUTES);
  });

  it('describes what the admin, edge and management APIs really answer', async () => {
    const { a } = kit;
    const admin = { 'service-tenant-id': a.tenantId, authorization: `basic ${a.adminApiKey}` };
    const discovery = { 'service-tenant-id': a.tenantId, authorization: `basic ${a.discoveryApiKey}` };
    const edgeAuth = { authorization: `Basic ${Buffer.from(`${a.connectionId}:${a.secret}`).toString('base64')}` };
    const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
      expectConforms(kit.url, CONTROL_PLANE_ROUTES, { method, path, headers, ...(body === undefined ? {} : { body }) });

    expect((await call('GET', '/healthz')).status).toBe(200);
    expect((await call('POST', '/api/v2/admin/policies/rbac', { ...admin, ...JSON_TYPE }, '{"files":{}}')).status).toBe(400);
    expect((await call('POST', '/api/v2/admin/policies/rbac', JSON_TYPE, '{}')).status).toBe(401);
    expect((await call('GET', '/api/v2/admin/policies/rbac', admin)).status).toBe(404);
    expect((await call('GET', '/api/v2/edge/policy-image', edgeAuth)).status).toBe(404);
    expect((await call('GET', '/api/v2/edge/directory/changes?since=x', edgeAuth)).status).toBe(400);
    const edge = await kit.edge(a);
    const exec = await call('POST', '/api/v2/management/control_plane/exec', { ...discovery, ...JSON_TYPE }, JSON.stringify({ id: edge.instanceId, command: { discovery: {} } }));
    expect(exec.status).toBe(200);
    expect((await call('POST', '/api/v2/management/control_plane/exec', { ...discovery, ...JSON_TYPE }, '{"id":"nobody","command":{"discovery":{}}}')).status).toBe(404);
    expect((await call('POST', '/api/v2/management/control_plane/exec', { ...discovery, ...JSON_TYPE }, '{"id":"x","command":{}}')).status).toBe(400);
    expect((await call('GET', '/api/v2/management/control_plane/instance_registrations', discovery)).status).toBe(200);
    expect((await call('GET', '/api/v2/management/control_plane/instance_registrations?page_size=0', discovery)).status).toBe(400);
    expect((await call('DELETE', `/api/v2/management/control_plane/instance_registrations/${edge.instanceId}`, discovery)).status).toBe(409);
  });
});

describe('edge authorizer /openapi.json', () => {
  let cp: FakeControlPlane;
  let dir: string;
  let edge: Edge;
  let url: string;
  let server: Awaited<ReturnType<typeof listen>>;
  beforeAll(async () => {
    cp = await startFakeControlPlane();
    dir = tempDir();
    ({ edge } = await makeSyncedEdge(cp.url, dir));
    server = await listen(edge.app, 0, '127.0.0.1');
    url = baseUrl(server);
  });
  afterAll(async () => {
    await close(server);
    await edge.close();
    await cp.close();
    removeDir(dir);
  });

  it('is the document built from the route table, and every route in it is served', async () => {
    await expectServedDocument(url, EDGE_OPENAPI, EDGE_ROUTES);
    await expectEveryRouteServed(url, EDGE_ROUTES);
  });

  it('describes what the edge really answers', async () => {
    const is = (body: unknown) =>
      expectConforms(url, EDGE_ROUTES, { method: 'POST', path: '/api/v2/authz/is', headers: JSON_TYPE, body: JSON.stringify(body) });
    const question = {
      identity_context: { type: 'IDENTITY_TYPE_SUB', identity: USERS.rick.id },
      policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] },
      resource_context: { type: 'Resource', id: 'mega-seed' },
    };
    expect((await is(question)).status).toBe(200);
    expect((await is({ ...question, policy_context: { path: 'rbac', decisions: [] } })).status).toBe(400);
    expect((await expectConforms(url, EDGE_ROUTES, { method: 'GET', path: '/readyz' })).status).toBe(200);
    expect((await expectConforms(url, EDGE_ROUTES, { method: 'GET', path: '/metrics' })).status).toBe(200);
    expect((await expectConforms(url, EDGE_ROUTES, { method: 'GET', path: '/healthz' })).status).toBe(200);
  });
});

describe('sample apps /openapi.json', () => {
  let fixture: AppFixture;
  let rbacUrl: string;
  let todoUrl: string;
  let store: TodoStore;
  let dir: string;
  const authorizers: Authorizer[] = [];
  const tokens = {} as Record<keyof typeof USERS, string>;
  beforeAll(async () => {
    fixture = await startAppFixture();
    const { directory } = loadDirectorySeed(fixture.config.directorySeedFile);
    const rbac = openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: 'rbac', directory });
    const todo = openLocalAuthorizer({ policiesDir: fixture.config.policiesDir, policyName: 'todo', directory });
    authorizers.push(rbac, todo);
    const authenticate = accessTokenMiddleware(fixture.config);
    rbacUrl = await fixture.serve(createRbacApp({ authenticate, authorizer: rbac, policyName: 'rbac', logger: silentLogger() }));
    dir = mkdtempSync(join(tmpdir(), 'outpost-openapi-todo-'));
    store = openTodoStore(join(dir, 'todo.db'));
    todoUrl = await fixture.serve(createTodoApp({ authenticate, authorizer: todo, store, directory: () => directory, logger: silentLogger(), authUrl: fixture.idp.url }));
    for (const name of ['rick', 'morty', 'beth'] as const) tokens[name] = (await fixture.idp.token(USERS[name].email)).access_token;
  });
  afterAll(async () => {
    await Promise.all(authorizers.map((a) => a.close()));
    store.close();
    await fixture.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const bearer = (name: keyof typeof USERS) => ({ authorization: `Bearer ${tokens[name]}` });

  it('RBAC app: the document built from its route table, every route served, real answers conform', async () => {
    await expectServedDocument(rbacUrl, RBAC_OPENAPI, RBAC_ROUTES);
    await expectEveryRouteServed(rbacUrl, RBAC_ROUTES);
    const call = (method: string, path: string, headers: Record<string, string> = {}) => expectConforms(rbacUrl, RBAC_ROUTES, { method, path, headers });
    expect((await call('DELETE', '/resource/mega-seed', bearer('rick'))).status).toBe(200);
    expect((await call('DELETE', '/resource/mega-seed', bearer('morty'))).status).toBe(403);
    expect((await call('GET', '/resource/mega-seed')).status).toBe(401);
    expect((await call('GET', '/resource/bad%20name', bearer('rick'))).status).toBe(400);
    expect((await call('GET', '/healthz')).status).toBe(200);
  });

  it('todo app: the document built from its route table, every route served, real answers conform', async () => {
    await expectServedDocument(todoUrl, TODO_OPENAPI, TODO_ROUTES);
    await expectEveryRouteServed(todoUrl, TODO_ROUTES);
    const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      expectConforms(todoUrl, TODO_ROUTES, { method, path, headers: { ...headers, ...JSON_TYPE }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const created = await call('POST', '/todos', bearer('morty'), { title: 'document me' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await call('POST', '/todos', bearer('morty'), { title: '' })).status).toBe(400);
    expect((await call('POST', '/todos', bearer('beth'), { title: 'no' })).status).toBe(403);
    expect((await call('GET', '/todos', bearer('beth'))).status).toBe(200);
    expect((await call('PUT', `/todos/${id}`, bearer('morty'), { completed: true })).status).toBe(200);
    expect((await call('DELETE', `/todos/${id}`, bearer('beth'))).status).toBe(403);
    expect((await call('DELETE', `/todos/${id}`, bearer('rick'))).status).toBe(204);
    expect((await call('GET', `/users/${USERS.rick.id}`, bearer('beth'))).status).toBe(200);
    expect((await call('GET', '/config.json')).status).toBe(200);
  });
});
