import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { consolePublicDir } from '../../src/console';
import { createControlPlaneApp, openControlPlaneStore } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { controlPlaneExtensions, startControlPlaneRelay, type ControlPlaneRelay } from '../../src/control-plane-server';
import type { ControlPlaneLocation, ControlPlaneStore } from '../../src/control-plane';
import { findProjectRoot } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger, type Logger } from '../../src/observability';
import type { RelayDeps } from '../../src/relay';
import { SQLITE_ENGINE, type SqlEngineUnderTest } from '../helpers/sql-engines';
import { FakeEdge } from './fake-edge';
import type { FakeEdgeOptions } from './fake-edge';

/** A tenant with its Discovery API key and one edge connection. */
export interface TestTenant {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
  readonly adminApiKey: string;
  readonly connectionId: string;
  readonly secret: string;
}

export const START = Date.parse('2025-03-01T12:00:00.000Z');

/** A relay on a real HTTP server (port 0) over a real control-plane store (a file in a temp dir, or PostgreSQL). */
export interface RelayKit {
  readonly store: ControlPlaneStore;
  readonly relay: ControlPlaneRelay;
  readonly server: Server;
  readonly url: string;
  readonly a: TestTenant;
  readonly b: TestTenant;
  readonly clock: { now: number };
  readonly dir: string;
  /** Where the store lives (a file in `dir`, or a PostgreSQL database). */
  readonly location: ControlPlaneLocation;
  /** Connects a fake edge for a tenant; it is closed by `stop()`. */
  edge(tenant: TestTenant, options?: Partial<FakeEdgeOptions>): Promise<FakeEdge>;
  /** Calls the management API with a tenant's credentials. */
  call(path: string, init?: { tenant?: TestTenant; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** Restarts the relay on the same store and server (as after a crash or deploy). */
  restartRelay(): Promise<void>;
  stop(): Promise<void>;
}

type KitOptions = Partial<Pick<RelayDeps, 'execTimeoutMs' | 'heartbeatMs' | 'registerTimeoutMs' | 'maxPendingPerEdge' | 'maxSocketsPerConnection'>> & {
  /** The plug-ins' options: METRICS_TOKEN (src/edge-drift), the broadcast's edge bound (src/relay-broadcast). */
  readonly metricsToken?: string;
  readonly maxBroadcastEdges?: number;
  /** The store's engine (SQLite by default). */
  readonly engine?: SqlEngineUnderTest;
  /** The control plane's and the relay's logger (silent by default). */
  readonly logger?: Logger;
};

async function addTenant(store: ControlPlaneStore, name: string): Promise<TestTenant> {
  const keys = await store.tenants.create(name);
  const connection = await store.tenants.addConnection(keys.tenantId, 'rbac');
  return { ...keys, connectionId: connection.connectionId, secret: connection.connectionSecret };
}

export async function startRelayKit(options: KitOptions = {}): Promise<RelayKit> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-relay-'));
  const location = await (options.engine ?? SQLITE_ENGINE).location(dir);
  const store = await openControlPlaneStore(location);
  const clock = { now: START };
  const a = await addTenant(store, 'tenant a');
  const b = await addTenant(store, 'tenant b');
  const edges: FakeEdge[] = [];
  const logger = options.logger ?? silentLogger();
  const build = () =>
    startControlPlaneRelay({
      store,
      logger,
      execTimeoutMs: options.execTimeoutMs ?? 10_000,
      heartbeatMs: options.heartbeatMs ?? 60_000,
      now: () => clock.now,
      ...(options.registerTimeoutMs ? { registerTimeoutMs: options.registerTimeoutMs } : {}),
      ...(options.maxPendingPerEdge ? { maxPendingPerEdge: options.maxPendingPerEdge } : {}),
      ...(options.maxSocketsPerConnection ? { maxSocketsPerConnection: options.maxSocketsPerConnection } : {}),
      ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
      ...(options.maxBroadcastEdges ? { maxBroadcastEdges: options.maxBroadcastEdges } : {}),
    });
  let relay = await build();
  // The real control-plane app; the relay's router is looked up per request so restartRelay() can swap it.
  const routers = express.Router().use((req, res, next) => relay.managementRouter(req, res, next));
  // Decision records and the console API as main.ts mounts them; no IdP here, so only its refusals of tokenless calls are reachable.
  const extensions = controlPlaneExtensions(store, {
    relay,
    auth: { issuer: 'http://idp.invalid', jwksUri: 'http://idp.invalid/.well-known/jwks.json' },
    page: { publicDir: consolePublicDir(findProjectRoot()), authUrl: 'http://idp.invalid' },
  });
  const app = createControlPlaneApp({
    store,
    pushCheck: signedImagePushCheck(),
    logger,
    routers: [routers],
    extensions,
    sampleDecisions: (tenantId, instanceId) => relay.sampleDecisions(tenantId, instanceId),
  });
  const server = await listen(app, 0, '127.0.0.1');
  relay.attach(server);
  const url = baseUrl(server);

  return {
    store,
    get relay() {
      return relay;
    },
    server,
    url,
    a,
    b,
    clock,
    dir,
    location,
    async edge(tenant, edgeOptions = {}) {
      const edge = await FakeEdge.connect({ baseUrl: url, connectionId: tenant.connectionId, secret: tenant.secret, ...edgeOptions });
      edges.push(edge);
      return edge;
    },
    call(path, init = {}) {
      const tenant = init.tenant ?? a;
      const headers: Record<string, string> = {
        'service-tenant-id': tenant.tenantId,
        authorization: `basic ${tenant.discoveryApiKey}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...init.headers,
      };
      const body = init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      return fetch(`${url}${path}`, { method: body === undefined ? 'GET' : 'POST', headers, ...(body !== undefined ? { body } : {}) });
    },
    async restartRelay() {
      await relay.close();
      relay = await build();
      relay.attach(server);
    },
    async stop() {
      await Promise.all(edges.map((e) => e.close()));
      await relay.close();
      server.closeAllConnections();
      await close(server);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
