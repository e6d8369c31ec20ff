import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProjectRoot } from '../config';
import { createControlPlaneApp, createControlPlaneRelay, createTenant, openControlPlaneStore, type ControlPlaneStore } from '../control-plane';
import { relayPlatform } from '../control-plane-server';
import { checkPolicyImage } from '../decision';
import { loadDirectorySeed } from '../directory';
import { createEdge, type Edge } from '../sidecar';
import { baseUrl, close, listen } from '../http';
import type { Logger } from '../observability';
import { readPolicyFolder } from '../policy';
import type { Relay } from '../relay';
import { signedImagePushCheck } from '../signing-keys';
import type { InteropScenario } from './interop-scenarios';

/** Options of {@link startInteropPdp}. */
export interface InteropPdpOptions {
  readonly scenario: InteropScenario;
  /** Port of the PDP on loopback; 0 picks a free one. */
  readonly port: number;
  readonly logger: Logger;
  /** Where the temporary data folder is made (default the OS's temporary folder); it is removed on close. */
  readonly tmpRoot?: string;
}

/** A running interop PDP. */
export interface InteropPdp {
  /** `http://localhost:<port>`: the AuthZEN base URL. */
  readonly url: string;
  readonly port: number;
  /** The temporary folder holding its SQLite file and the edge's state; gone after `close`. */
  readonly dataDir: string;
  /** Stops everything it started and removes its data folder. */
  close(): Promise<void>;
}

/** How long the relay waits for an edge's confirmation; the PDP's edge answers in milliseconds. */
const EXEC_TIMEOUT_MS = 10_000;
/** Sync timers of the PDP's edge: the fixture never changes while it runs, so they hardly matter. */
const SYNC_INTERVAL_MS = 60_000;
const FULL_SYNC_INTERVAL_MS = 3_600_000;

/** Label of the PDP's edge connection, as the console would show it. */
const CONNECTION_LABEL = 'AuthZEN interop PDP';

/** Runs `steps` in reverse, each even if one before it failed. */
async function unwind(steps: (() => Promise<void> | void)[]): Promise<void> {
  for (const step of steps.reverse()) {
    try {
      await step();
    } catch {
      // best effort: the next step still runs, and the data folder is removed last
    }
  }
}

/**
 * Starts an AuthZEN PDP for one interop scenario from the stack's real parts: a control
 * plane (SQLite in a fresh temporary folder) holding a tenant whose directory is the
 * scenario's seed and whose image is its policy folder (the folder's own tests run first),
 * its relay, and an edge authorizer connected to it that has run both syncs — the sidecar
 * edge an app would call, serving `/access/v1/evaluation(s)` and the metadata document on
 * loopback. Nothing is special-cased for the scenario. `close` stops it all and removes the
 * folder; a failure part-way does the same before it throws.
 */
export async function startInteropPdp(options: InteropPdpOptions): Promise<InteropPdp> {
  const { scenario, logger } = options;
  if (scenario.unavailable !== undefined) throw new Error(`the ${scenario.name} scenario is not available: ${scenario.unavailable}`);
  const root = findProjectRoot();
  const dataDir = mkdtempSync(join(options.tmpRoot ?? tmpdir(), `outpost-interop-${scenario.name}-`));
  const undo: (() => Promise<void> | void)[] = [() => rmSync(dataDir, { recursive: true, force: true })];
  try {
    const image = readPolicyFolder(join(root, 'policies', scenario.policy));
    checkPolicyImage(image);
    const { directory } = loadDirectorySeed(join(root, scenario.directorySeed));

    const store: ControlPlaneStore = await openControlPlaneStore(join(dataDir, 'control-plane.sqlite'));
    undo.push(() => store.close());
    const tenant = await createTenant(store, { name: `interop-${scenario.name}`, directory });
    await store.images.push(tenant.tenantId, image);
    const connection = await store.tenants.addConnection(tenant.tenantId, image.name, CONNECTION_LABEL);

    // The relay's platform (broadcast, drift, /metrics) as the control plane's process plugs it in.
    const relay: Relay = await createControlPlaneRelay({ store, logger, execTimeoutMs: EXEC_TIMEOUT_MS, heartbeatMs: SYNC_INTERVAL_MS, extensions: relayPlatform(store).extensions });
    let controlPlane: Server | undefined;
    undo.push(() => controlPlane && close(controlPlane));
    undo.push(() => relay.close());
    controlPlane = await listen(createControlPlaneApp({ store, logger, pushCheck: signedImagePushCheck(), routers: [relay.managementRouter] }), 0, '127.0.0.1');
    relay.attach(controlPlane);
    const relayUrl = baseUrl(controlPlane);

    const edge: Edge = createEdge({
      relayUrl,
      connectionId: connection.connectionId,
      connectionSecret: connection.connectionSecret,
      dataDir: join(dataDir, 'edge'),
      discoveryIntervalMs: SYNC_INTERVAL_MS,
      directorySyncIntervalMs: SYNC_INTERVAL_MS,
      fullSyncIntervalMs: FULL_SYNC_INTERVAL_MS,
      // No IdP runs here: subjects arrive as ids, so a JWT identity on the Topaz-shaped API
      // finds no keys (503 jwks_unavailable) rather than a made-up issuer.
      jwt: { issuer: relayUrl, jwksUri: `${relayUrl}/.well-known/jwks.json`, audience: 'urn:outpost:interop' },
      logger,
    });
    await edge.start();
    undo.push(() => edge.close());
    for (const command of ['discovery', 'sync_edge_directory'] as const) {
      const outcome = await edge.runCommand(command);
      if (!outcome.ok) throw new Error(`the PDP's edge could not run ${command}: ${outcome.error.message}`);
    }

    const pdp = await listen(edge.app, options.port, '127.0.0.1');
    undo.push(() => close(pdp));
    const port = (pdp.address() as { port: number }).port;
    let closed: Promise<void> | undefined;
    return {
      url: `http://localhost:${port}`,
      port,
      dataDir,
      close: () => (closed ??= unwind(undo)),
    };
  } catch (err) {
    await unwind(undo);
    throw err;
  }
}
