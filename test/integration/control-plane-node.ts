/**
 * A control plane (store, relay, admin/edge/management API) that can be stopped and
 * started again on the same port and store (SQLite file or PostgreSQL database), as a
 * process restart would. A request
 * hook sees every HTTP request first (to count, hold or fail some), and the relay's
 * WebSocket connections can be cut at the TCP level.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  createControlPlaneApp,
  openControlPlaneStore,
  type ControlPlaneLocation,
  type DemoTenantFileLocation,
  type ControlPlaneStore,
} from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import type { ConsoleAuthOptions } from '../../src/console';
import { controlPlaneExtensions, startControlPlaneRelay } from '../../src/control-plane-server';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { freePort } from '../../scripts/lib/free-port';
import type { Relay } from '../../src/relay';

/** Exec's confirmation timeout: long, so "answers promptly" is told apart from a 504. */
export const EXEC_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = 3_600_000;
/** `METRICS_TOKEN` of every test control plane: `/metrics` names tenants only to its bearer. */
export const METRICS_TOKEN = 'test-metrics-token-0123456789abcdef';

/** Sees every control-plane HTTP request first; call `pass()` to let the real app answer. */
export type RequestHook = (req: IncomingMessage, res: ServerResponse, pass: () => void) => void;

/** A restartable control plane; see {@link createControlPlaneNode}. */
export interface ControlPlaneNode {
  /** Base URL; fixed by the first start and kept across restarts. */
  readonly url: string;
  readonly running: boolean;
  /** The open store; throws while stopped. */
  readonly store: ControlPlaneStore;
  hook: RequestHook | undefined;
  start(): Promise<void>;
  /** Closes the relay (edges see 1001), the server and the store; idempotent. */
  stop(): Promise<void>;
  /** Destroys every relay WebSocket's TCP connection, as if the edge process had been killed. */
  dropRelayConnections(): void;
}

interface Running {
  readonly store: ControlPlaneStore;
  readonly relay: Relay;
  readonly server: Server;
  readonly upgrades: Set<Duplex>;
}

/**
 * Nothing runs until `start()`; the first start picks a free port below the kernel's ephemeral
 * range (a port-0 server's port could be taken, while it is stopped, by any test's port-0
 * server or outgoing connection, and the restart then fails on EADDRINUSE), later ones reuse it; every
 * start opens the store at `location`. With `consoleAuth` the console API is mounted too,
 * trusting that IdP, and keeping `demoTenantFile` in step with rotations as the real server does.
 */
export function createControlPlaneNode(location: ControlPlaneLocation, consoleAuth?: ConsoleAuthOptions, demoTenantFile?: DemoTenantFileLocation): ControlPlaneNode {
  let running: Running | undefined;
  let port: number | undefined;
  let url = '';
  let hook: RequestHook | undefined;
  const withHook = (app: RequestListener): RequestListener => (req, res) => {
    if (hook) hook(req, res, () => app(req, res));
    else app(req, res);
  };

  return {
    get url() {
      if (!url) throw new Error('the control plane has never been started');
      return url;
    },
    get running() {
      return running !== undefined;
    },
    get store() {
      if (!running) throw new Error('the control plane is stopped');
      return running.store;
    },
    get hook() {
      return hook;
    },
    set hook(next) {
      hook = next;
    },
    async start() {
      if (running) throw new Error('the control plane is already running');
      const store = await openControlPlaneStore(location);
      try {
        const relay = await startControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: EXEC_TIMEOUT_MS, heartbeatMs: HEARTBEAT_MS, metricsToken: METRICS_TOKEN });
        const extensions = controlPlaneExtensions(store, consoleAuth ? { relay, auth: consoleAuth, ...(demoTenantFile ? { demoTenantFile } : {}) } : undefined);
        const app = createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter], extensions, sampleDecisions: relay.sampleDecisions });
        port ??= await freePort();
        const server = await listen(withHook(app), port, '127.0.0.1');
        const upgrades = new Set<Duplex>();
        server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
          upgrades.add(socket);
          socket.once('close', () => upgrades.delete(socket));
        });
        relay.attach(server);
        url = baseUrl(server);
        running = { store, relay, server, upgrades };
      } catch (err) {
        await store.close();
        throw err;
      }
    },
    async stop() {
      const current = running;
      if (!current) return;
      running = undefined;
      await current.relay.close();
      current.server.closeAllConnections();
      await close(current.server);
      await current.store.close();
    },
    dropRelayConnections() {
      for (const socket of running?.upgrades ?? []) socket.destroy();
    },
  };
}
