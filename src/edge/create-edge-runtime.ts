import { hostname as osHostname } from 'node:os';
import { createLocalAuthorizer } from '@outpost/cedar-authorizer';
import { acquireDirectoryLock, DirectoryLockedError, type HeldLock } from '../files';
import { DEFAULT_COMMAND_TIMEOUT_MS, type CommandName } from '../relay-protocol';
import { createCoalescingJob } from './coalescing-job';
import { createControlPlaneClient } from './control-plane-client';
import { describeFailure } from './describe-failure';
import { createDecisionSample } from './decision-sample';
import type { SyncJob, SyncResult } from './edge-plugin';
import type { EdgeRuntime, EdgeRuntimeDeps } from './edge-runtime';
import { edgeStatus, type EdgeState } from './edge-state';
import { createFreshness } from './freshness';
import { loadOrCreateInstanceId } from './instance-id';
import { createPeriodicJob } from './periodic-job';
import { createRelayClient } from './relay-client';
import { createTryDecision } from './try-decision';
import type { CommandOutcome } from './relay-client-contract';
import { createDirectorySync, loadPersistedDirectory } from './sync-directory';
import { loadPersistedPolicy, syncPolicy, type SyncOutcome } from './sync-policy';
import { systemTimers, withinMs } from './timers';
import { policyVerdicts } from './policy-verdict';

/** The share of a command's time the edge spends on it; the rest is for its result to reach the relay. */
export const COMMAND_RESULT_SHARE = 0.9;

/** Wires an edge runtime. Starts nothing. */
export function createEdgeRuntime(deps: EdgeRuntimeDeps): EdgeRuntime {
  const { logger, dataDir } = deps;
  const timers = deps.timers ?? systemTimers;
  const now = deps.now ?? Date.now;
  const instanceId = loadOrCreateInstanceId(dataDir);
  const state: EdgeState = { policy: undefined, directory: undefined };
  const plugins = deps.plugins ?? [];
  const synced = (job: SyncJob, result: SyncResult) => {
    for (const plugin of plugins) plugin.onSync?.(job, result);
  };
  const credentials = { connectionId: deps.connectionId, connectionSecret: deps.connectionSecret };
  const random = deps.random ?? Math.random;
  const client = createControlPlaneClient({ relayUrl: deps.relayUrl, credentials, timers, now, random });
  const directorySync = createDirectorySync({ client, state, dataDir, fullSyncIntervalMs: deps.fullSyncIntervalMs, now, logger });

  function counted(job: SyncJob, task: (deadline: number | undefined) => Promise<SyncOutcome>) {
    return createCoalescingJob(async (deadline) => {
      try {
        const outcome = await task(deadline);
        synced(job, outcome);
        return outcome;
      } catch (err) {
        synced(job, 'failed');
        throw err;
      }
    });
  }
  const pinned = deps.imageSignatures;
  // Keyed with the connection secret, which the data folder does not hold (policy-verdict.ts).
  const verdicts = policyVerdicts(dataDir, deps.connectionSecret);
  const discoveryJob = counted('policy', (deadline) => syncPolicy({ client, state, dataDir, logger, pinned, verdicts, deadline }));
  const directoryJob = counted('directory', (deadline) => directorySync.run(deadline));

  let relay: ReturnType<typeof createRelayClient> | undefined;
  let dataDirLock: HeldLock | undefined;
  const afterTimerRun = (job: SyncJob) => (result: { ok: true } | { ok: false; error: unknown }) => {
    if (!result.ok) logger.warn({ job, ...describeFailure(result.error, logger) }, 'scheduled sync failed');
    relay?.sendStatus();
  };
  const discovery = createPeriodicJob({ job: discoveryJob, intervalMs: deps.discoveryIntervalMs, timers, random, afterTimerRun: afterTimerRun('policy') });
  const directory = createPeriodicJob({ job: directoryJob, intervalMs: deps.directorySyncIntervalMs, timers, random, afterTimerRun: afterTimerRun('directory') });

  /**
   * Runs a relay command within the time the relay waits for it (`timeoutMs`, the frame's
   * `timeout_ms`), less {@link COMMAND_RESULT_SHARE}'s margin for the result to travel back:
   * a download that times out is tried again within it, and a failure names its real cause
   * before exec gives up with a bare 504.
   */
  async function runCommand(command: CommandName, timeoutMs?: number): Promise<CommandOutcome> {
    const deadline = now() + Math.floor((timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS) * COMMAND_RESULT_SHARE);
    try {
      await (command === 'discovery' ? discovery : directory).runNow(deadline);
      return { ok: true, status: edgeStatus(state) };
    } catch (err) {
      const error = describeFailure(err, logger);
      logger.warn({ command, code: error.code, reason: error.message }, 'command failed');
      return { ok: false, error };
    }
  }

  /**
   * After a reconnect both syncs run once (coalesced with any run under way): an exec sent
   * while the edge was between relay nodes was answered 409 or 504 and may never be sent
   * again, and the syncs are what it would have run. The first registration needs none:
   * `start()` runs both.
   */
  function resyncAfterReconnect(): void {
    const runs: Promise<unknown>[] = [];
    for (const [job, periodic] of [['policy', discovery], ['directory', directory]] as const) {
      runs.push(periodic.runNow().catch((err: unknown) => logger.warn({ job, ...describeFailure(err, logger) }, 'sync after reconnect failed')));
    }
    void Promise.all(runs).then(() => relay?.sendStatus());
  }

  const decisionSample = createDecisionSample();
  const tryDecision = createTryDecision(state);
  const authorizer = createLocalAuthorizer({
    policy: () => state.policy?.compiled,
    directory: () => state.directory,
    onDecision: decisionSample.record,
    ...(deps.cacheSize === undefined ? {} : { cacheSize: deps.cacheSize }),
  });
  const freshness = createFreshness({
    state,
    sync: { discovery: () => discovery.runNow(), directory: () => directory.runNow() },
    waitMs: deps.freshnessWaitMs ?? 2_000,
    // Real timers even under test clocks: the wait bounds a caller's wall-clock time.
    timers: systemTimers,
    now: Date.now,
    onSynced: () => relay?.sendStatus(),
  });

  return {
    instanceId,
    state,
    authorizer,
    metrics: () => plugins.map((plugin) => plugin.metrics?.(state) ?? '').join(''),
    decisionSample,
    answered(allowed) {
      for (const plugin of plugins) plugin.onAnswer?.(allowed);
    },
    recordDecision(request, decision, requestId, latencyMs) {
      for (const plugin of plugins) plugin.onDecision?.(request, decision, requestId, latencyMs, state);
    },
    freshness,
    async start() {
      // Two edges on one data directory would share an instance id, and the second to dial
      // would take the first one's relay session: the second refuses to start instead.
      try {
        dataDirLock ??= await acquireDirectoryLock(dataDir, 'edge');
      } catch (err) {
        if (!(err instanceof DirectoryLockedError)) throw err;
        throw new Error(`another edge is using ${dataDir} (${err.message}); give each edge its own data directory`);
      }
      state.policy ??= await loadPersistedPolicy(dataDir, logger, pinned, verdicts);
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
        decisionSample: () => decisionSample.entries(),
        tryDecision: tryDecision.decide,
        onRegistered: (again) => {
          if (again) resyncAfterReconnect();
        },
        logger,
        timers,
        random,
        now,
        ...deps.relay,
      });
      discovery.start();
      directory.start();
      relay.start();
      for (const plugin of plugins) plugin.start?.(() => relay);
    },
    async close() {
      discovery.stop();
      directory.stop();
      // Before the relay closes: a plug-in may send what it holds (decision records do).
      for (const plugin of plugins) plugin.stop?.();
      await relay?.close();
      client.abort();
      await Promise.all([discoveryJob.idle(), directoryJob.idle()]);
      await authorizer.close();
      await tryDecision.close();
      // Frees the image in Cedar's memory, which outlives this edge in an embedded process.
      state.policy?.compiled.release();
      state.policy = undefined;
      dataDirLock?.release();
      dataDirLock = undefined;
    },
    async settle(timeoutMs) {
      await withinMs(Promise.all([discoveryJob.idle(), directoryJob.idle()]), timeoutMs, systemTimers);
      return state.policy !== undefined && state.directory !== undefined;
    },
    runCommand,
    status: () => edgeStatus(state),
    get relayConnected() {
      return relay?.connected ?? false;
    },
  };
}
