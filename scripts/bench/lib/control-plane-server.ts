// Bench child: the control plane with its relay on 127.0.0.1 (random port), a temporary
// SQLite file and the first-start seed (demo tenant, policies, directory).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config';
import { createControlPlaneApp, createTenant, openControlPlaneStore, seedControlPlane, type ControlPlaneStore } from '../../../src/control-plane';
import { controlPlaneExtensions, startControlPlaneRelay } from '../../../src/control-plane-server';
import { openDecisionRepository } from '../../../src/decision-store';
import { loadDirectorySeed } from '../../../src/directory';
import { baseUrl, close, listen } from '../../../src/http';
import { createLogger } from '../../../src/observability';
import { useBaselineWasm } from '../../../src/policy';
import type { Relay } from '../../../src/relay';
import { signedImagePushCheck } from '../../../src/signing-keys';
import { measureMemory, serveParent, stallWatch } from './child-endpoint';

/** What `start` returns: where the relay listens and the demo tenant's credentials. */
export interface ControlPlaneInfo {
  readonly url: string;
  /**
   * The same control plane and relay behind a second listener with the opt-in bare exec
   * (RELAY_BARE_EXEC=on, src/fast-path), so a bench compares both paths in one run.
   */
  readonly bareExecUrl: string;
  readonly tenantId: string;
  readonly discoveryApiKey: string;
  readonly adminApiKey: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
  /** The RBAC app's connection, for an embedded edge. */
  readonly appConnection: { readonly connectionId: string; readonly connectionSecret: string };
  /** The relay process's open-file limit: each edge socket takes one descriptor. */
  readonly openFileLimit: number;
}

const dataDir = mkdtempSync(join(tmpdir(), 'outpost-bench-cp-'));
let running: { store: ControlPlaneStore; relay: Relay; server: Server; bareExecServer: Server } | undefined;

/** Options of `start`: the per-credential socket cap (the fake fleets share one credential). */
export interface ControlPlaneStartArgs {
  readonly maxSocketsPerConnection?: number;
  /** The relay's ping period (default 30 s). */
  readonly heartbeatMs?: number;
}

/** The relay process's open-file limit (soft), from /proc: the ceiling on sockets it can hold. */
function openFileLimit(): number {
  const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
  return line ? Number(line[1]) : Number.POSITIVE_INFINITY;
}

async function start(args: ControlPlaneStartArgs | null = null): Promise<ControlPlaneInfo> {
  useBaselineWasm(); // as control-plane-server/main does
  const config = loadConfig({ OUTPOST_DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  // Logs at the deployed level, written to /dev/null by the harness: their cost is real.
  const logger = createLogger('control-plane', 'info');
  const store = await openControlPlaneStore(join(dataDir, 'control-plane.sqlite'));
  const demo = await seedControlPlane(store, {
    policiesDir: config.policiesDir,
    directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
    dataDir,
    urls: { auth_url: 'http://127.0.0.1:9', relay_url: 'http://127.0.0.1:9', app_url: 'http://127.0.0.1:9' },
  });
  if (!demo) throw new Error('the fresh store was not seeded');
  // 1,000 fake edges share one connection credential here; real deployments keep the default cap.
  const relay = await startControlPlaneRelay({ store, logger, execTimeoutMs: 10_000, heartbeatMs: args?.heartbeatMs ?? 30_000, maxSocketsPerConnection: args?.maxSocketsPerConnection ?? 5000 });
  const server = await listen(createControlPlaneApp({ store, logger, pushCheck: signedImagePushCheck(), routers: [relay.managementRouter], extensions: controlPlaneExtensions(store) }), 0, '127.0.0.1');
  relay.attach(server);
  const bareExecServer = await listen(createControlPlaneApp({ store, logger, pushCheck: signedImagePushCheck(), routers: [relay.managementRouter], extensions: controlPlaneExtensions(store), bareExec: relay }), 0, '127.0.0.1');
  running = { store, relay, server, bareExecServer };
  return {
    url: baseUrl(server),
    bareExecUrl: baseUrl(bareExecServer),
    tenantId: demo.tenant_id,
    discoveryApiKey: demo.discovery_api_key,
    adminApiKey: demo.admin_api_key,
    connectionId: demo.connection_id,
    connectionSecret: demo.connection_secret,
    appConnection: { connectionId: demo.app_connections!.rbac.connection_id, connectionSecret: demo.app_connections!.rbac.connection_secret },
    openFileLimit: openFileLimit(),
  };
}

/** A second tenant, as `npm run tenants -- create` makes one, with one connection: its credentials and admin key. */
export interface OtherTenantInfo {
  readonly tenantId: string;
  readonly adminApiKey: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
}

async function addTenant(name: string): Promise<OtherTenantInfo> {
  if (!running) throw new Error('start first');
  const keys = await createTenant(running.store, { name, directory: { roles: [], users: [], resources: [] } });
  const connection = await running.store.tenants.addConnection(keys.tenantId, 'rbac');
  return { tenantId: keys.tenantId, adminApiKey: keys.adminApiKey, connectionId: connection.connectionId, connectionSecret: connection.connectionSecret };
}

/** The decision records the store holds for a tenant. */
function decisionCount(tenantId: string): Promise<number> {
  if (!running) throw new Error('start first');
  return openDecisionRepository(running.store).count(tenantId);
}

// What the relay's event loop and GC did between two `stalls` calls (the exec tail's makings).
const stalls = stallWatch();

serveParent({ start, memory: measureMemory, stalls, addTenant, decisionCount }, async () => {
  if (running) {
    await running.relay.close();
    await close(running.server);
    await close(running.bareExecServer);
    await running.store.close();
  }
  rmSync(dataDir, { recursive: true, force: true });
});
