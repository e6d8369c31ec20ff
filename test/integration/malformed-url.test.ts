/**
 * A URL path whose percent-escapes do not decode (`%ff`, an overlong `%C0%AF`, a cut-off
 * `%e0%80` or `a%2`) is the client's mistake on every service: 400 with the error contract
 * (the OAuth shape at the IdP), one short info line in the log, never a 500 with a stack —
 * with or without credentials, on parameter routes, other paths and the edge's decision paths.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { createRbacApp } from '../../src/apps/rbac';
import { createTodoApp, openTodoStore, type TodoStore } from '../../src/apps/todo';
import { openLocalAuthorizer, type Authorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { consoleExtension } from '../../src/console';
import { createControlPlaneApp, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { startControlPlaneRelay, type ControlPlaneRelay } from '../../src/control-plane-server';
import { signedImagePushCheck } from '../../src/signing-keys';
import { loadDirectorySeed } from '../../src/directory';
import { createEdge, type Edge } from '../../src/sidecar';
import { baseUrl, close, listen } from '../../src/http';
import { openIdp } from '../../src/idp';
import { startAppFixture, USERS, type AppFixture } from '../apps/app-fixture';
import { capturingLogger, type LogLine } from '../helpers/capturing-logger';

/** Escapes that decodeURIComponent refuses: an invalid byte, a cut-off sequence, a short escape, an overlong '/'. */
const ESCAPES = ['%ff', '%e0%80', 'a%2', '%C0%AF'] as const;

const servers: Server[] = [];
const cleanup: (() => Promise<void> | void)[] = [];
let fixture: AppFixture;
let token: string;
const urls: Record<string, string> = {};
const logs: Record<string, LogLine[]> = {};

async function serve(name: string, build: (logger: ReturnType<typeof capturingLogger>['logger']) => RequestListener | Promise<RequestListener>) {
  const { logger, lines } = capturingLogger();
  const server = await listen(await build(logger), 0, '127.0.0.1');
  servers.push(server);
  urls[name] = baseUrl(server);
  logs[name] = lines;
}

beforeAll(async () => {
  fixture = await startAppFixture();
  token = (await fixture.idp.token(USERS.rick.email)).access_token;
  const { config } = fixture;
  const { directory } = loadDirectorySeed(config.directorySeedFile);
  const dir = mkdtempSync(join(tmpdir(), 'outpost-malformed-'));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));

  await serve('idp', async (logger) => (await openIdp(loadConfig({ AUTH_URL: fixture.idp.url, OUTPOST_DATA_DIR: join(dir, 'idp'), LOG_LEVEL: 'silent' }), logger)).app);

  const store: ControlPlaneStore = await openControlPlaneStore(join(dir, 'control-plane.db'));
  let relay: ControlPlaneRelay | undefined;
  cleanup.unshift(() => store.close());
  await serve('control plane', async (logger) => {
    relay = await startControlPlaneRelay({ store, logger, execTimeoutMs: 1_000, heartbeatMs: 60_000 });
    const consoleArea = consoleExtension({ store, relay, auth: { issuer: fixture.idp.issuer, jwksUri: fixture.idp.jwksUri } });
    return createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger, routers: [relay.managementRouter], extensions: [consoleArea] });
  });
  cleanup.unshift(() => relay?.close());

  let edge: Edge | undefined;
  await serve('edge', (logger) => {
    edge = createEdge({
      relayUrl: 'http://127.0.0.1:9',
      connectionId: 'conn',
      connectionSecret: 'secret',
      dataDir: join(dir, 'edge'),
      discoveryIntervalMs: 3_600_000,
      directorySyncIntervalMs: 3_600_000,
      fullSyncIntervalMs: 3_600_000,
      jwt: { issuer: fixture.idp.issuer, jwksUri: fixture.idp.jwksUri, audience: fixture.idp.audience },
      logger,
    });
    return edge.app;
  });
  cleanup.unshift(() => edge?.close());

  const authorizers: Authorizer[] = [];
  cleanup.unshift(async () => void (await Promise.all(authorizers.map((a) => a.close()))));
  const authorizer = (policyName: string) => {
    const opened = openLocalAuthorizer({ policiesDir: config.policiesDir, policyName, directory });
    authorizers.push(opened);
    return opened;
  };
  await serve('rbac app', (logger) => createRbacApp({ authenticate: accessTokenMiddleware(config), authorizer: authorizer('rbac'), policyName: 'rbac', logger }));
  const todoStore: TodoStore = openTodoStore(join(dir, 'todo.db'));
  cleanup.unshift(() => todoStore.close());
  await serve('todo app', (logger) =>
    createTodoApp({
      authenticate: accessTokenMiddleware(config),
      authorizer: authorizer('todo'),
      store: todoStore,
      directory: () => directory,
      logger,
      publicDir: join(config.projectRoot, 'src', 'apps', 'todo', 'public'),
      authUrl: fixture.idp.url,
    }),
  );
});

afterAll(async () => {
  await Promise.all(servers.map((s) => close(s)));
  for (const step of cleanup) await step();
  await fixture.close();
});

/** Where each service is asked: its parameter routes (with and without a token), other paths, the edge's decision paths. */
const CASES: readonly (readonly [service: string, method: string, path: (escape: string) => string, auth: boolean])[] = [
  ['idp', 'GET', (e) => `/authorize/${e}`, false],
  ['idp', 'POST', (e) => `/token/${e}`, false],
  ['idp', 'GET', (e) => `/${e}`, false],
  ['control plane', 'GET', (e) => `/api/v2/management/control_plane/instance_registrations/${e}`, false],
  ['control plane', 'DELETE', (e) => `/api/v2/management/control_plane/instance_registrations/${e}`, false],
  ['control plane', 'GET', (e) => `/console/api/tenants/${e}`, false],
  ['control plane', 'POST', (e) => `/api/v2/admin/policies/${e}`, false],
  ['edge', 'GET', (e) => `/readyz/${e}`, false],
  ['edge', 'POST', (e) => `/api/v2/authz/is/${e}`, false],
  ['edge', 'POST', (e) => `/access/v1/evaluation${e}`, false],
  ['edge', 'POST', (e) => `/access/v1/evaluations/${e}`, false],
  ['rbac app', 'GET', (e) => `/resource/${e}`, false],
  ['rbac app', 'DELETE', (e) => `/resource/${e}`, true],
  ['todo app', 'GET', (e) => `/users/${e}`, false],
  ['todo app', 'PUT', (e) => `/todos/${e}`, true],
  ['todo app', 'DELETE', (e) => `/todos/${e}`, true],
  ['todo app', 'GET', (e) => `/vendor/${e}`, false],
];

describe.each(ESCAPES)('a path with %s', (escape) => {
  it.each(CASES.map(([service, method, path, auth]) => [service, method, path(escape), auth] as const))('%s %s %s (token: %s) is a 400 with one short info line', async (service, method, path, auth) => {
    const res = await fetch(`${urls[service]}${path}`, { method, headers: auth ? { authorization: `Bearer ${token}` } : {} });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const message = 'the URL path is not valid percent-encoded UTF-8';
    expect(await res.json()).toEqual(service === 'idp' ? { error: 'invalid_request', error_description: message } : { code: 'bad_request', message });
    const id = res.headers.get('x-request-id');
    // The request line is written when the response finishes; fetch may resolve a moment before.
    const mine = () => logs[service]!.filter((l) => l.req_id === id);
    for (let i = 0; i < 100 && !mine().some((l) => l.msg === 'request'); i += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(mine().map((l) => [l.level, l.msg])).toEqual([
      [30, 'malformed URL refused'],
      [30, 'request'],
    ]);
    expect(JSON.stringify(mine())).not.toMatch(/stack|URIError/);
  });
});
