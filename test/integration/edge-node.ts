/**
 * A real edge authorizer on its own HTTP server (127.0.0.1), with long sync timers (only
 * relay commands sync during a test), a short reconnect backoff, and its log lines as
 * events the tests can wait on.
 */
import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { freePort } from '../../scripts/lib/free-port';
import { decisionRecords } from '../../src/decision-records';
import { createEdge, type Edge } from '../../src/sidecar';
import { baseUrl, close, listen } from '../../src/http';
import type { Logger } from '../../src/observability';
import type { PublicSigningKey } from '../../src/policy';
import { nextLog, type LogLine } from './stack-client';

const HOUR = 3_600_000;

/** A running edge authorizer and its HTTP server. */
export interface EdgeHandle {
  readonly edge: Edge;
  readonly instanceId: string;
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly credentials: EdgeCredentials;
  /** Emits `log` with every line the edge logs, parsed. */
  readonly logs: EventEmitter;
  /** Closes the server, then the edge; idempotent. */
  stop(): Promise<void>;
}

/** An edge connection's id and secret (the edge authenticates with them at the upgrade). */
export interface EdgeCredentials {
  readonly connectionId: string;
  readonly connectionSecret: string;
}

/** What {@link startEdgeNode} needs; the stack fixture fills it in. */
export interface StartEdgeOptions {
  readonly relayUrl: string;
  readonly credentials: EdgeCredentials;
  readonly dataDir: string;
  readonly hostname: string;
  readonly jwt: { readonly issuer: string; readonly jwksUri: string; readonly audience: string };
  /**
   * Default: a free port below the kernel's ephemeral range, so that a restart on it cannot find
   * it taken by a port-0 server or an outgoing connection; a restart passes the previous one.
   */
  readonly port?: number;
  /** Wait until the relay confirmed the registration and both first syncs succeeded (default true). */
  readonly waitUntilSynced?: boolean;
  /** Pinned image-signing keys (`EDGE_POLICY_SIGNING_KEYS`); none by default. */
  readonly policySigningKeys?: readonly PublicSigningKey[];
}

/** A pino logger whose lines become `log` events (the edge's own messages are the signals). */
function capturingLogger(): { logger: Logger; logs: EventEmitter } {
  const logs = new EventEmitter();
  logs.setMaxListeners(50);
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.emit('log', JSON.parse(line) as LogLine) });
  return { logger, logs };
}

/** Starts an edge and its server; by default resolves once it is registered and synced. */
export async function startEdgeNode(options: StartEdgeOptions): Promise<EdgeHandle> {
  const { logger, logs } = capturingLogger();
  const edge = createEdge({
    relayUrl: options.relayUrl,
    ...options.credentials,
    dataDir: options.dataDir,
    discoveryIntervalMs: HOUR,
    directorySyncIntervalMs: HOUR,
    fullSyncIntervalMs: 24 * HOUR,
    jwt: options.jwt,
    // As the stack's sidecar (src/sidecar/start-edge.ts): its decisions are recorded.
    plugins: [decisionRecords({ app: 'sidecar' })],
    logger,
    version: '1.2.3-test',
    hostname: options.hostname,
    relay: { backoff: { baseMs: 20, capMs: 200 } },
    ...(options.policySigningKeys ? { policySigningKeys: options.policySigningKeys } : {}),
  });
  const waitUntilSynced = options.waitUntilSynced ?? true;
  const registered = waitUntilSynced ? nextLog(logs, 'registered with the relay') : undefined;
  registered?.catch(() => undefined); // awaited below; never an unhandled rejection if start fails first
  let server: Server;
  try {
    await edge.start();
    server = await listen(edge.app, options.port ?? (await freePort()), '127.0.0.1');
  } catch (err) {
    await edge.close();
    throw err;
  }
  let stopped: Promise<void> | undefined;
  const handle: EdgeHandle = {
    edge,
    instanceId: edge.instanceId,
    url: baseUrl(server),
    port: (server.address() as { port: number }).port,
    dataDir: options.dataDir,
    credentials: options.credentials,
    logs,
    stop() {
      stopped ??= close(server).then(() => edge.close());
      return stopped;
    },
  };
  if (!waitUntilSynced) return handle;
  try {
    await registered;
    // Joins the first timer runs (they coalesce); both must have succeeded.
    const outcomes = await Promise.all([edge.runCommand('discovery'), edge.runCommand('sync_edge_directory')]);
    for (const outcome of outcomes) if (!outcome.ok) throw new Error(`the edge did not sync: ${outcome.error.message}`);
  } catch (err) {
    await handle.stop();
    throw err;
  }
  return handle;
}
