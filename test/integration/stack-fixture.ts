/**
 * The whole chain, real and in-process on 127.0.0.1 (port 0): the IdP, a control plane
 * (store on SQLite by default or on the test file's PostgreSQL, seeded with `policies/` and the Citadel directory, relay, admin and
 * management API), edge authorizers with their own data directories, and the RBAC sample
 * app asking the first edge through the edge authorizer. Pieces can be stopped and
 * restarted on the same ports and files; `close()` always cleans up whatever still runs.
 *
 * Timers are long (an hour), so nothing syncs by itself during a test: the relay
 * commands drive every change. Only the edges' reconnect backoff is short.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { createRbacApp } from '../../src/apps/rbac';
import { createEdgeAuthorizer } from '../../src/authorizer';
import { CONSOLE_CLIENT_ID, loadConfig, type Config } from '../../src/config';
import { describeControlPlaneLocation, seedControlPlane, type ControlPlaneLocation, type ControlPlaneStore } from '../../src/control-plane';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { startTestIdp, type TestIdp } from '../helpers/idp';
import { authorizeUrl, exchangeCode, pkcePair, signInThroughPage } from '../idp/oauth-fixture';
import { SQLITE_ENGINE, type SqlEngineUnderTest } from '../helpers/sql-engines';
import { createControlPlaneNode, type RequestHook } from './control-plane-node';
import { startEdgeNode, type EdgeCredentials, type EdgeHandle, type StartEdgeOptions } from './edge-node';
import { tenantFromDemo, type TenantCredentials } from './stack-client';

export { EXEC_TIMEOUT_MS } from './control-plane-node';
export type { RequestHook } from './control-plane-node';
export type { EdgeHandle } from './edge-node';

/** What an extra edge may pin. */
export type EdgeOptions = Pick<StartEdgeOptions, 'policySigningKeys'>;

/** The running chain and the levers the integration tests pull. */
export interface Stack {
  readonly idp: TestIdp;
  readonly config: Config;
  /** The seeded demo tenant; the primary edge uses its connection. */
  readonly demo: TenantCredentials;
  /** The demo tenant's connections for the sample apps' embedded edges. */
  readonly appConnections: Readonly<Record<'rbac' | 'todo', EdgeCredentials>>;
  /** The control plane's base URL, the same across restarts. */
  readonly relayUrl: string;
  /** The RBAC app, asking the primary edge over HTTP (the `edge` authorizer). */
  readonly appUrl: string;
  /** The primary edge; replaced by {@link Stack.restartEdge} (same data directory and port). */
  readonly edge: EdgeHandle;
  /** The control plane's open store; throws while it is stopped. */
  readonly store: ControlPlaneStore;
  /** Where the control plane's store lives, for a test that rewinds or inspects it directly (`openLocation`). */
  readonly controlPlaneLocation: ControlPlaneLocation;
  /** The control plane's data folder: the seed wrote `demo-tenant.json` there, as `OUTPOST_DATA_DIR` of a script would find it. */
  readonly dataDir: string;
  /** Sees every control-plane HTTP request first (see {@link RequestHook}). */
  hook: RequestHook | undefined;
  startControlPlane(): Promise<void>;
  stopControlPlane(): Promise<void>;
  /** Cuts every relay WebSocket at the TCP level, as a killed edge process would. */
  dropRelayConnections(): void;
  /** Another edge (e.g. another tenant's, or one pinning signing keys), with a fresh data directory; stopped by `close()`. */
  startEdge(credentials: EdgeCredentials, options?: EdgeOptions): Promise<EdgeHandle>;
  /** Stops the primary edge and starts a new one on its data directory and port. */
  restartEdge(options?: { waitUntilSynced?: boolean }): Promise<EdgeHandle>;
  close(): Promise<void>;
}

/**
 * Starts the whole chain, the control plane's store on `engine` (SQLite by default); on any
 * failure everything already started is cleaned up.
 */
export async function startStack(engine: SqlEngineUnderTest = SQLITE_ENGINE): Promise<Stack> {
  const root = mkdtempSync(join(tmpdir(), 'outpost-integration-'));
  const cleanup: (() => Promise<void>)[] = [async () => rmSync(root, { recursive: true, force: true })];
  const edges = new Set<EdgeHandle>();
  let edgeCount = 0;

  try {
    const idp = await startTestIdp({ LOGIN_MAX_FAILURES: '1000' });
    cleanup.unshift(() => idp.close());
    const config = loadConfig({ AUTH_URL: idp.url, LOG_LEVEL: 'silent' });

    const cpDir = join(root, 'control-plane');
    mkdirSync(cpDir);
    const location = await engine.location(cpDir);
    // As the real control plane: its folder's demo-tenant.json names its database and follows rotations.
    const database = describeControlPlaneLocation(location);
    const cp = createControlPlaneNode(location, { issuer: idp.issuer, jwksUri: idp.jwksUri }, { dataDir: cpDir, database });
    cleanup.unshift(() => cp.stop());
    await cp.start();
    const seeded = await seedControlPlane(cp.store, {
      policiesDir: config.policiesDir,
      directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
      dataDir: cpDir,
      urls: { auth_url: idp.url, relay_url: cp.url, app_url: 'http://127.0.0.1:0' },
      database,
    });
    if (!seeded) throw new Error('the fresh control plane was not seeded');
    const demo = tenantFromDemo(seeded);
    const apps = seeded.app_connections!;
    const appConnections = {
      rbac: { connectionId: apps.rbac.connection_id, connectionSecret: apps.rbac.connection_secret },
      todo: { connectionId: apps.todo.connection_id, connectionSecret: apps.todo.connection_secret },
    };

    cleanup.unshift(async () => void (await Promise.allSettled([...edges].map((e) => e.stop()))));
    async function startEdge(credentials: EdgeCredentials, reuse?: { dataDir: string; port: number }, waitUntilSynced = true, options: EdgeOptions = {}) {
      edgeCount += 1;
      const edge = await startEdgeNode({
        ...options,
        relayUrl: cp.url,
        credentials,
        dataDir: reuse?.dataDir ?? join(root, `edge-${edgeCount}`),
        ...(reuse ? { port: reuse.port } : {}),
        hostname: `integration-edge-${edgeCount}`,
        jwt: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: idp.audience },
        waitUntilSynced,
      });
      edges.add(edge);
      return edge;
    }
    let primary = await startEdge(demo);

    const authorizer = createEdgeAuthorizer({ url: primary.url });
    cleanup.unshift(() => authorizer.close());
    const rbac = createRbacApp({ authenticate: accessTokenMiddleware(config), authorizer, policyName: 'rbac', logger: silentLogger() });
    const appServer = await listen(rbac, 0, '127.0.0.1');
    cleanup.unshift(() => close(appServer));

    return {
      idp,
      config,
      demo,
      appConnections,
      get relayUrl() {
        return cp.url;
      },
      appUrl: baseUrl(appServer),
      get edge() {
        return primary;
      },
      get store() {
        return cp.store;
      },
      controlPlaneLocation: location,
      dataDir: cpDir,
      get hook() {
        return cp.hook;
      },
      set hook(next) {
        cp.hook = next;
      },
      startControlPlane: () => cp.start(),
      stopControlPlane: () => cp.stop(),
      dropRelayConnections: () => cp.dropRelayConnections(),
      startEdge: (credentials, options) => startEdge(credentials, undefined, true, options),
      async restartEdge(options = {}) {
        const { dataDir, port, credentials } = primary;
        await primary.stop();
        edges.delete(primary);
        primary = await startEdge(credentials, { dataDir, port }, options.waitUntilSynced ?? true);
        return primary;
      },
      async close() {
        cp.hook = undefined;
        await runCleanup(cleanup);
      },
    };
  } catch (err) {
    await runCleanup(cleanup);
    throw err;
  }
}

/** Runs every cleanup step (last started, first stopped) even when one fails; reports the first failure. */
async function runCleanup(steps: (() => Promise<void>)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps.splice(0)) {
    try {
      await step();
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
}

/** A console access token for `email`, the console's way: code + PKCE through the stack IdP's login page. */
export async function consoleToken(stack: Stack, email: string): Promise<string> {
  const { verifier, challenge } = pkcePair();
  const redirectUri = stack.config.idp.clients.find((c) => c.clientId === CONSOLE_CLIENT_ID)!.redirectUris[0]!;
  const url = authorizeUrl(stack.idp.url, challenge, { client_id: CONSOLE_CLIENT_ID, redirect_uri: redirectUri, scope: 'openid profile email' });
  const { callback } = await signInThroughPage(stack.idp.url, url, email);
  const res = await exchangeCode(stack.idp.url, callback, verifier, CONSOLE_CLIENT_ID, redirectUri);
  if (res.status !== 200) throw new Error(`console token for ${email}: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}
