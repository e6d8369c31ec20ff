/**
 * The control plane as `npm start` runs it for the console, in-process on 127.0.0.1: it
 * listens first, so its real URL can be the IdP's `RELAY_URL` (the console client's redirect
 * URI `{RELAY_URL}/console/callback`) and an allowed browser origin; then the store is seeded
 * (demo tenant and accounts), the relay and the console (API and page) are mounted, and one
 * real edge connects with the demo connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import {
  controlPlaneDbPath,
  createControlPlaneApp,
  openControlPlaneStore,
  seedControlPlane,
  type ControlPlaneStore,
} from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { consolePublicDir } from '../../src/console';
import { controlPlaneExtensions, startControlPlaneRelay } from '../../src/control-plane-server';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { startTestIdp, type TestIdp } from '../helpers/idp';
import { startEdgeNode, type EdgeHandle } from '../integration/edge-node';
import { tenantFromDemo, type TenantCredentials } from '../integration/stack-client';

/** The running control plane, its IdP and edge; `close()` stops them all. */
export interface ConsoleStack {
  readonly idp: TestIdp;
  /** `{relay_url}`; the console is at `${url}/console/`. */
  readonly url: string;
  readonly store: ControlPlaneStore;
  readonly demo: TenantCredentials;
  readonly edge: EdgeHandle;
  /** Ends every open HTTP connection of the control plane (a console stream's included), as a restart would; WebSockets stay. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** Starts the IdP, the control plane with the console, and one edge of the demo tenant. */
export async function startConsoleStack(): Promise<ConsoleStack> {
  const root = mkdtempSync(join(tmpdir(), 'outpost-console-'));
  const cleanup: (() => Promise<void> | void)[] = [() => rmSync(root, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of cleanup.splice(0)) await step();
  };
  try {
    let handler: RequestListener = (_req, res) => res.writeHead(503).end();
    const server = await listen((req, res) => handler(req, res), 0, '127.0.0.1');
    cleanup.unshift(async () => {
      server.closeAllConnections();
      await close(server);
    });
    const url = baseUrl(server);
    const idp = await startTestIdp({ RELAY_URL: url, IDP_CORS_ORIGINS: url, LOGIN_MAX_FAILURES: '1000' });
    cleanup.unshift(() => idp.close());
    const config = loadConfig({ AUTH_URL: idp.url, RELAY_URL: url, LOG_LEVEL: 'silent' });
    const store = await openControlPlaneStore(controlPlaneDbPath(root));
    cleanup.unshift(() => store.close());
    const seeded = await seedControlPlane(store, {
      policiesDir: config.policiesDir,
      directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
      dataDir: root,
      urls: { auth_url: idp.url, relay_url: url, app_url: 'http://127.0.0.1:0' },
    });
    if (!seeded) throw new Error('the fresh control plane was not seeded');
    const relay = await startControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: 10_000, heartbeatMs: 3_600_000 });
    cleanup.unshift(() => relay.close());
    const extensions = controlPlaneExtensions(store, {
      relay,
      auth: { issuer: idp.issuer, jwksUri: idp.jwksUri },
      page: { publicDir: consolePublicDir(config.projectRoot), authUrl: idp.url },
    });
    handler = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter], extensions });
    relay.attach(server);
    const demo = tenantFromDemo(seeded);
    const edge = await startEdgeNode({
      relayUrl: url,
      credentials: demo,
      dataDir: join(root, 'edge'),
      hostname: 'console-edge-1',
      jwt: { issuer: idp.issuer, jwksUri: idp.jwksUri, audience: idp.audience },
    });
    cleanup.unshift(() => edge.stop());
    return { idp, url, store, demo, edge, dropConnections: () => server.closeAllConnections(), close: stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
