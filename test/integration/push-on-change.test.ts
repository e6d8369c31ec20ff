/**
 * Push on change end to end (docs/reference/api.md, "Push on change"): the IdP, a control
 * plane seeded with the demo tenant (push on change on) and running the push as main.ts does,
 * a real edge authorizer, and the RBAC app asking it. A central grant makes Morty's DELETE
 * flip at the app, and a pushed policy makes Summer's, with no exec or broadcast sent by
 * anyone: every HTTP request the control plane serves is recorded, and none is a command.
 * The edge's timers are an hour long, so only the push can have synced it.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { letEditorsDelete } from '../../scripts/lib/let-editors-delete';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { createRbacApp } from '../../src/apps/rbac';
import { createEdgeAuthorizer } from '../../src/authorizer';
import { loadConfig } from '../../src/config';
import { createControlPlaneApp, openControlPlaneStore, seedControlPlane, startPushOnChange, type ControlPlaneStore, type PushOnChange } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { readPolicyFolder } from '../../src/policy';
import { startControlPlaneRelay, type ControlPlaneRelay } from '../../src/control-plane-server';
import { startTestIdp, type TestIdp } from '../helpers/idp';
import { startEdgeNode, type EdgeHandle } from './edge-node';
import { admin, callResource, tenantFromDemo, type LogLine, type TenantCredentials } from './stack-client';

jest.setTimeout(60_000);

let dir: string;
let idp: TestIdp;
let store: ControlPlaneStore;
let relay: ControlPlaneRelay;
let push: PushOnChange;
let cpServer: Server;
let cpUrl: string;
let edge: EdgeHandle;
let authorizer: ReturnType<typeof createEdgeAuthorizer>;
let appServer: Server;
let appUrl: string;
let demo: TenantCredentials;
/** Every request the control plane served, as `METHOD path`. */
const served: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-push-'));
  idp = await startTestIdp({ LOGIN_MAX_FAILURES: '1000' });
  const config = loadConfig({ AUTH_URL: idp.url, LOG_LEVEL: 'silent' });
  store = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
  relay = await startControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: 10_000, heartbeatMs: 3_600_000 });
  push = startPushOnChange({ store, broadcast: relay.broadcast, logger: silentLogger() });
  const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter] });
  const recording: RequestListener = (req: IncomingMessage, res: ServerResponse) => {
    served.push(`${req.method} ${req.url}`);
    app(req, res);
  };
  cpServer = await listen(recording, 0, '127.0.0.1');
  relay.attach(cpServer);
  cpUrl = baseUrl(cpServer);
  const seeded = await seedControlPlane(store, {
    policiesDir: config.policiesDir,
    directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
    dataDir: dir,
    urls: { auth_url: idp.url, relay_url: cpUrl, app_url: 'http://127.0.0.1:0' },
  });
  if (!seeded) throw new Error('the fresh control plane was not seeded');
  demo = tenantFromDemo(seeded);
  edge = await startEdgeNode({
    relayUrl: cpUrl,
    credentials: { connectionId: seeded.connection_id, connectionSecret: seeded.connection_secret },
    dataDir: join(dir, 'edge'),
    hostname: 'push-edge',
    jwt: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: idp.audience },
  });
  authorizer = createEdgeAuthorizer({ url: edge.url });
  const rbac = createRbacApp({ authenticate: accessTokenMiddleware(config), authorizer, policyName: 'rbac', logger: silentLogger() });
  appServer = await listen(rbac, 0, '127.0.0.1');
  appUrl = baseUrl(appServer);
});

afterAll(async () => {
  await close(appServer);
  await authorizer?.close();
  await edge?.stop();
  const pushes = push?.close();
  await relay?.close();
  await pushes;
  cpServer?.closeAllConnections();
  if (cpServer) await close(cpServer);
  await store?.close();
  await idp?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The next line the edge logs with `msg`, whose fields include `fields`. */
function edgeLogs(msg: string, fields: Record<string, unknown>): Promise<LogLine> {
  return new Promise((resolve) => {
    const listener = (line: LogLine) => {
      if (line.msg !== msg || !Object.entries(fields).every(([k, v]) => line[k] === v)) return;
      edge.logs.off('log', listener);
      resolve(line);
    };
    edge.logs.on('log', listener);
  });
}

async function deleteAs(email: string): Promise<number> {
  const token = (await idp.token(email)).access_token;
  return (await callResource(appUrl, 'DELETE', 'mega-seed', token)).status;
}

const commandsSent = () => served.filter((line) => /\/control_plane\/(exec|broadcast)/.test(line));

describe('push on change (demo tenant: on)', () => {
  it("makes Morty's DELETE flip after a central grant, with no exec sent", async () => {
    expect(await deleteAs('morty@the-citadel.com')).toBe(403);
    const pushed = edgeLogs('relay command', { command: 'sync_edge_directory' });
    const synced = edgeLogs('directory synced', { revision: 2 });
    const grant = await admin(cpUrl, demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect({ status: grant.status, body: grant.body }).toEqual({ status: 200, body: { revision: 2 } });
    await pushed;
    await synced;
    expect(await deleteAs('morty@the-citadel.com')).toBe(200);
    expect(commandsSent()).toEqual([]);
  });

  it("makes Summer's DELETE flip after a policy push, with no exec sent", async () => {
    expect(await deleteAs('summer@the-smiths.com')).toBe(403);
    const rbac = readPolicyFolder(join(loadConfig({ LOG_LEVEL: 'silent' }).policiesDir, 'rbac'));
    const activated = edgeLogs('policy image activated', { policy: 'rbac' });
    const pushedImage = await admin(cpUrl, demo, 'POST', '/api/v2/admin/policies/rbac', { files: letEditorsDelete(rbac.files) });
    expect(pushedImage.status).toBe(201);
    expect((await activated).digest).toBe((pushedImage.body as { digest: string }).digest);
    expect(await deleteAs('summer@the-smiths.com')).toBe(200);
    expect(commandsSent()).toEqual([]);
  });
});
