/**
 * The `embedded` authorizer (the sample apps' default): an edge runtime inside the RBAC
 * app, wired exactly as `npm start` wires it (`openAppAuthorizer` from the configuration),
 * against a real control plane and relay. Relay commands must change the app's own
 * answers by the time exec returns; the app must keep deciding with the control plane
 * down, and after a restart from its data directory alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { openAppAuthorizer } from '../../src/apps/app-dependencies';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { createRbacApp } from '../../src/apps/rbac';
import { createTodoApp, openTodoStore } from '../../src/apps/todo';
import type { Authorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { readPolicyFolder } from '../../src/policy';
import { USERS } from '../apps/app-fixture';
import { admin, callResource, exec, registrations, waitFor } from './stack-client';
import { startStack, type Stack } from './stack-fixture';

type User = keyof typeof USERS;

let stack: Stack;
let dataDir: string;
const tokens = {} as Record<User, string>;
const opened: { authorizer: Authorizer; stop(): Promise<void> }[] = [];

beforeEach(async () => {
  stack = await startStack();
  dataDir = mkdtempSync(join(tmpdir(), 'outpost-embedded-'));
  for (const user of Object.keys(USERS) as User[]) tokens[user] = (await stack.idp.token(USERS[user].email)).access_token;
});

afterEach(async () => {
  for (const app of opened.splice(0)) await app.stop();
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The RBAC app as its entry file builds it, with `connection` for its embedded edge. */
async function startRbacApp(connection = stack.appConnections.rbac): Promise<{ url: string; authorizer: Authorizer; stop(): Promise<void> }> {
  const config = loadConfig({
    AUTH_URL: stack.idp.url,
    RELAY_URL: stack.relayUrl,
    OUTPOST_DATA_DIR: dataDir,
    RBAC_CONNECTION_ID: connection.connectionId,
    RBAC_CONNECTION_SECRET: connection.connectionSecret,
    LOG_LEVEL: 'silent',
  });
  expect(config.apps.authorizer).toBe('embedded'); // the default
  const { authorizer } = await openAppAuthorizer(config, 'rbac', silentLogger());
  const app = createRbacApp({ authenticate: accessTokenMiddleware(config), authorizer, policyName: 'rbac', logger: silentLogger() });
  const server = await listen(app, 0, '127.0.0.1');
  const handle = {
    url: baseUrl(server),
    authorizer,
    async stop() {
      await close(server);
      await authorizer.close();
    },
  };
  opened.push(handle);
  return handle;
}

async function statusOf(url: string, user: User): Promise<number> {
  return (await callResource(url, 'DELETE', 'mega-seed', tokens[user])).status;
}

async function appInstanceId(): Promise<string> {
  // Registered first, then synced: the synced status reaches the relay in a frame of its own.
  return waitFor('the app edge registration with its policy', async () =>
    (await registrations(stack.relayUrl, stack.demo)).find((r) => r.info.connection_id === stack.appConnections.rbac.connectionId && r.info.connected && r.info.policy_name !== '')?.id,
  );
}

describe('the embedded edge inside the RBAC app', () => {
  it('registers with the relay like any edge and decides in-process', async () => {
    const app = await startRbacApp();
    expect(app.authorizer.kind).toBe('embedded');
    const id = await appInstanceId();
    const mine = (await registrations(stack.relayUrl, stack.demo)).find((r) => r.id === id)!;
    expect(mine.info).toMatchObject({ policy_name: 'rbac', directory_revision: 1, connected: true });
    expect(mine.info.hostname).toMatch(/^rbac-app@/);
    expect(await statusOf(app.url, 'rick')).toBe(200);
    expect(await statusOf(app.url, 'morty')).toBe(403);
    expect(await (await fetch(`${app.url}/readyz`)).json()).toEqual({ status: 'ready', authorizer: 'embedded' });
  });

  it('is not ready (readyz 503, decisions 503) until its edge has synced once, then serves', async () => {
    await stack.stopControlPlane();
    const app = await startRbacApp(); // a fresh data directory and no control plane: nothing to decide from
    const readyz = await fetch(`${app.url}/readyz`);
    expect({ status: readyz.status, body: await readyz.json() }).toEqual({ status: 503, body: { status: 'not_ready', authorizer: 'embedded' } });
    expect(await statusOf(app.url, 'rick')).toBe(503);

    await stack.startControlPlane();
    const id = await appInstanceId(); // the edge reconnects by itself
    expect((await exec(stack.relayUrl, stack.demo, id, 'discovery')).status).toBe(200);
    expect((await exec(stack.relayUrl, stack.demo, id, 'sync_edge_directory')).status).toBe(200);
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
    expect(await statusOf(app.url, 'rick')).toBe(200);
  });

  it('records its decisions for a dry run, like the sidecar', async () => {
    const app = await startRbacApp();
    const id = await appInstanceId();
    expect(await statusOf(app.url, 'summer')).toBe(403);
    expect(await statusOf(app.url, 'rick')).toBe(200);
    const files = letEditorsDelete(readPolicyFolder(join(stack.config.policiesDir, 'rbac')).files);
    const dryRun = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac/dry-run', { files, instance_id: id });
    expect(dryRun.status).toBe(200);
    expect(dryRun.body).toMatchObject({ sampled: 2, flips: { allow_to_deny: 0, deny_to_allow: 1 }, changes: [{ principal: USERS.summer.id, action: 'DELETE', recorded: 'deny', candidate: 'allow' }] });
  });

  it("changes the app's own answers by the time each command's exec returns", async () => {
    const app = await startRbacApp();
    const id = await appInstanceId();

    expect((await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin')).status).toBe(200);
    expect(await statusOf(app.url, 'morty')).toBe(403);
    expect((await exec(stack.relayUrl, stack.demo, id, 'sync_edge_directory')).status).toBe(200);
    expect(await statusOf(app.url, 'morty')).toBe(200);

    const files = letEditorsDelete(readPolicyFolder(join(stack.config.policiesDir, 'rbac')).files);
    expect((await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files })).status).toBe(201);
    expect(await statusOf(app.url, 'summer')).toBe(403);
    expect((await exec(stack.relayUrl, stack.demo, id, 'discovery')).status).toBe(200);
    expect(await statusOf(app.url, 'summer')).toBe(200);
    // The sidecar edge on the other connection heard nothing: commands reach one instance.
    expect(stack.edge.edge.status().directory_revision).toBe(1);
  });

  it('keeps deciding with the control plane down, and restarts from its data directory alone', async () => {
    const first = await startRbacApp();
    const id = await appInstanceId();
    await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect((await exec(stack.relayUrl, stack.demo, id, 'sync_edge_directory')).status).toBe(200);

    await stack.stopControlPlane();
    expect(await statusOf(first.url, 'morty')).toBe(200);
    await first.stop();
    opened.splice(opened.indexOf(first), 1);

    const again = await startRbacApp();
    expect(await statusOf(again.url, 'morty')).toBe(200);
    expect(await statusOf(again.url, 'beth')).toBe(403);
    expect(await statusOf(again.url, 'rick')).toBe(200);
  });

  it('fails closed (503) when its connection serves another policy than the app asks about', async () => {
    const app = await startRbacApp(stack.appConnections.todo);
    const reply = await callResource(app.url, 'DELETE', 'mega-seed', tokens.rick);
    expect(reply.status).toBe(503);
  });

  it('serves the todo app too: a relay command changes who may create todos', async () => {
    const config = loadConfig({
      AUTH_URL: stack.idp.url,
      RELAY_URL: stack.relayUrl,
      OUTPOST_DATA_DIR: dataDir,
      TODO_CONNECTION_ID: stack.appConnections.todo.connectionId,
      TODO_CONNECTION_SECRET: stack.appConnections.todo.connectionSecret,
      LOG_LEVEL: 'silent',
    });
    const { authorizer, directory } = await openAppAuthorizer(config, 'todo', silentLogger());
    const store = openTodoStore(join(dataDir, 'todo.db'));
    const server = await listen(createTodoApp({ authenticate: accessTokenMiddleware(config), authorizer, store, directory, logger: silentLogger() }), 0, '127.0.0.1');
    opened.push({
      authorizer,
      async stop() {
        await close(server);
        await authorizer.close();
        await store.close();
      },
    });
    const create = () =>
      fetch(`${baseUrl(server)}/todos`, { method: 'POST', headers: { authorization: `Bearer ${tokens.beth}`, 'content-type': 'application/json' }, body: '{"title":"Buy mega seeds"}' });

    expect((await create()).status).toBe(403); // Beth is a viewer
    const id = await waitFor('the todo app edge registration', async () =>
      (await registrations(stack.relayUrl, stack.demo)).find((r) => r.info.connection_id === stack.appConnections.todo.connectionId && r.info.connected)?.id,
    );
    expect((await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/beth@the-smiths.com/roles/editor')).status).toBe(200);
    expect((await exec(stack.relayUrl, stack.demo, id, 'sync_edge_directory')).status).toBe(200);
    expect((await create()).status).toBe(201);
  });

  it('refuses to start without connection credentials, naming the variables', async () => {
    const config = loadConfig({ AUTH_URL: stack.idp.url, RELAY_URL: stack.relayUrl, OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    await expect(openAppAuthorizer(config, 'rbac', silentLogger())).rejects.toThrow(/RBAC_CONNECTION_ID and RBAC_CONNECTION_SECRET/);
  });
});
