import { hostname as osHostname } from 'node:os';
import type express from 'express';
import { createLocalAuthorizer } from '../decision';
import type { Logger } from '../observability';
import type { CommandName, EdgeStatus } from '../relay-protocol';
import { createCoalescingJob } from './coalescing-job';
import { createControlPlaneClient } from './control-plane-client';
import { describeFailure } from './describe-failure';
import { createEdgeApp } from './edge-app';
import { createEdgeMetrics, type SyncJob } from './edge-metrics';
import { edgeStatus, type EdgeState } from './edge-state';
import { loadOrCreateInstanceId } from './instance-id';
import { createPeriodicJob } from './periodic-job';
import { createRelayClient } from './relay-client';
import type { CommandOutcome } from './relay-client-contract';
import { createDirectorySync, loadPersistedDirectory } from './sync-directory';
import { loadPersistedPolicy, syncPolicy, type PinnedKeys, type SyncOutcome } from './sync-policy';
import { systemTimers, type Timers } from './timers';
import { createJwtIdentityVerifier } from './verify-identity';

/** Everything an edge needs; the optional trailing fields exist for tests. */
export interface EdgeDeps {
  readonly relayUrl: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
  readonly dataDir: string;
  readonly discoveryIntervalMs: number;
  readonly directorySyncIntervalMs: number;
  readonly fullSyncIntervalMs: number;
  readonly jwt: { readonly issuer: string; readonly jwksUri: string; readonly audience: string; readonly clockToleranceSec?: number };
  /** Pinned image-signing keys (`EDGE_POLICY_SIGNING_KEYS`): when set, only images signed by one of them are activated. */
  readonly policySigningKeys?: PinnedKeys;
  readonly logger: Logger;
  readonly version?: string;
  readonly hostname?: string;
  readonly timers?: Timers;
  readonly random?: () => number;
  readonly now?: () => number;
  readonly relay?: { readonly silenceTimeoutMs?: number; readonly stableAfterMs?: number; readonly backoff?: { baseMs: number; capMs: number } };
}

/** A running (or runnable) edge authorizer. */
export interface Edge {
  readonly app: express.Express;
  readonly instanceId: string;
  /** Loads persisted state, starts both timers and dials the relay. Never fails for a missing control plane. */
  start(): Promise<void>;
  close(): Promise<void>;
  /** What a relay command does: run the job now (coalescing) and report. */
  runCommand(command: CommandName): Promise<CommandOutcome>;
  status(): EdgeStatus;
  readonly relayConnected: boolean;
}

/** Wires an edge: state, the two sync jobs, the relay client and the HTTP app. Starts nothing. */
export function createEdge(deps: EdgeDeps): Edge {
  const { logger, dataDir } = deps;
  const timers = deps.timers ?? systemTimers;
  const now = deps.now ?? Date.now;
  const instanceId = loadOrCreateInstanceId(dataDir);
  const state: EdgeState = { policy: undefined, directory: undefined };
  const metrics = createEdgeMetrics(state);
  const credentials = { connectionId: deps.connectionId, connectionSecret: deps.connectionSecret };
  const client = createControlPlaneClient({ relayUrl: deps.relayUrl, credentials });
  const directorySync = createDirectorySync({ client, state, dataDir, fullSyncIntervalMs: deps.fullSyncIntervalMs, now, logger });

  function counted(job: SyncJob, task: () => Promise<SyncOutcome>) {
    return createCoalescingJob(async () => {
      try {
        const outcome = await task();
        metrics.sync(job, outcome);
        return outcome;
      } catch (err) {
        metrics.sync(job, 'failed');
        throw err;
      }
    });
  }
  const keys = deps.policySigningKeys;
  const discoveryJob = counted('policy', () => syncPolicy({ client, state, dataDir, logger, keys }));
  const directoryJob = counted('directory', () => directorySync.run());

  let relay: ReturnType<typeof createRelayClient> | undefined;
  const afterTimerRun = (job: SyncJob) => (result: { ok: true } | { ok: false; error: unknown }) => {
    if (!result.ok) logger.warn({ job, ...describeFailure(result.error, logger) }, 'scheduled sync failed');
    relay?.sendStatus();
  };
  const discovery = createPeriodicJob({ job: discoveryJob, intervalMs: deps.discoveryIntervalMs, timers, afterTimerRun: afterTimerRun('policy') });
  const directory = createPeriodicJob({ job: directoryJob, intervalMs: deps.directorySyncIntervalMs, timers, afterTimerRun: afterTimerRun('directory') });

  async function runCommand(command: CommandName): Promise<CommandOutcome> {
    try {
      await (command === 'discovery' ? discovery : directory).runNow();
      return { ok: true, status: edgeStatus(state) };
    } catch (err) {
      const error = describeFailure(err, logger);
      logger.warn({ command, code: error.code, reason: error.message }, 'command failed');
      return { ok: false, error };
    }
  }

  const authorizer = createLocalAuthorizer({ policy: () => state.policy?.compiled, directory: () => state.directory });
  const app = createEdgeApp({ state, authorizer, verifyJwt: createJwtIdentityVerifier({ ...deps.jwt, now }), metrics, logger });

  return {
    app,
    instanceId,
    async start() {
      state.policy ??= await loadPersistedPolicy(dataDir, logger, keys);
      state.directory ??= loadPersistedDirectory(dataDir, logger);
      logger.info({ instance_id: instanceId, ...edgeStatus(state) }, 'edge starting');
      relay = createRelayClient({
        relayUrl: deps.relayUrl,
        credentials,
        instanceId,
        hostname: deps.hostname ?? osHostname(),
        version: deps.version ?? 'dev',
        status: () => edgeStatus(state),
        onCommand: runCommand,
        logger,
        timers,
        ...(deps.random ? { random: deps.random } : {}),
        now,
        ...deps.relay,
      });
      discovery.start();
      directory.start();
      relay.start();
    },
    async close() {
      discovery.stop();
      directory.stop();
      await relay?.close();
      client.abort();
      await Promise.all([discoveryJob.idle(), directoryJob.idle()]);
      await authorizer.close();
      // Frees the image in Cedar's memory, which outlives this edge in an embedded process.
      state.policy?.compiled.release();
      state.policy = undefined;
    },
    runCommand,
    status: () => edgeStatus(state),
    get relayConnected() {
      return relay?.connected ?? false;
    },
  };
}
