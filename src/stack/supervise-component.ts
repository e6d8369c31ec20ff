import { setTimeout as delay } from 'node:timers/promises';
import type { Component } from './components';
import { restartBudget, windowText, type RestartPolicy } from './restart-policy';
import { runComponent, waitUntilReady, NotReadyError, type ReadyWaitOptions, type RunningComponent } from './run-component';
import { DEFAULT_STALL_MS } from './start-progress';

/** What {@link superviseComponent} needs from the launcher that owns the processes. */
export interface SupervisorContext {
  readonly host: string;
  readonly logDir: string;
  readonly readyTimeoutMs: number;
  readonly readyWait: Pick<ReadyWaitOptions, 'stallMs' | 'timeoutSetting'>;
  readonly policy: RestartPolicy;
  /** True once the launcher began to stop: from then on nothing is started. */
  readonly stopping: () => boolean;
  /** Resolves when the launcher begins to stop, to cut a backoff short. */
  readonly stopRequested: Promise<void>;
  /** Called with every process started for the component, so that stopping reaches it too. */
  readonly started: (run: RunningComponent) => void;
}

/** How a run ended, in the words of the death line: "exit code 1", "killed by SIGKILL". */
export function describeEnd(run: RunningComponent, code: number | null): string {
  return code === null ? `killed by ${run.child.signalCode ?? 'a signal'}` : `exit code ${code}`;
}

/**
 * Watches a component that is up (its first run ready) until the launcher stops: each death
 * prints one line and is answered by a restart after a growing wait, awaited until ready like
 * at start, within the policy's budget; past the budget the component stays down and the rest
 * of the stack goes on. A restart that does not become ready counts as a death.
 */
export async function superviseComponent(first: RunningComponent, file: string, ctx: SupervisorContext): Promise<void> {
  const { component } = first;
  const budget = restartBudget(ctx.policy);
  const window = windowText(ctx.policy);
  let run = first;
  let upSince = Date.now();
  let how = describeEnd(run, await run.exited);
  for (;;) {
    if (ctx.stopping()) return; // the launcher's own SIGTERM ended it: not a death
    const now = Date.now();
    const plan = budget.afterDeath(now, now - upSince);
    if (plan.action === 'stay-down') {
      console.error(`${component.label} stopped (${how}) and stays down: ${plan.restarts} restart${plan.restarts === 1 ? '' : 's'} in the last ${window}; see ${run.logFile}`);
      return;
    }
    console.error(
      `${component.label} stopped (${how}; log ${run.logFile}); restarting in ${plan.delayMs / 1000} s (restart ${plan.restart} of ${ctx.policy.maxRestarts} this ${window})`,
    );
    await Promise.race([delay(plan.delayMs), ctx.stopRequested]);
    // The one guard that keeps a stop final: a backoff that ends while stopping starts nothing.
    if (ctx.stopping()) return;
    try {
      run = runComponent(component, file, ctx.logDir);
    } catch (err) {
      // Its log cannot be opened, or no process can be spawned: nothing to retry blindly, but no reason to stop the others.
      console.error(`${component.label} could not be restarted (${(err as Error).message}) and stays down`);
      return;
    }
    ctx.started(run);
    const notReady = await becomeReady(run, component, ctx);
    upSince = Date.now();
    if (notReady !== undefined) {
      how = notReady;
      continue;
    }
    console.log(`${component.label} is back (restart ${plan.restart}, pid ${run.child.pid})`);
    how = describeEnd(run, await run.exited);
  }
}

/**
 * Waits until a restarted run answers its ready path; `undefined` when it does, else how it
 * failed. One that is still running then is killed and awaited, so that the next run finds
 * its port free.
 */
async function becomeReady(run: RunningComponent, component: Component, ctx: SupervisorContext): Promise<string | undefined> {
  try {
    await waitUntilReady(run, ctx.host, ctx.readyTimeoutMs, ctx.readyWait);
    return undefined;
  } catch (err) {
    if (run.child.exitCode === null && run.child.signalCode === null) {
      run.child.kill('SIGKILL');
      await run.exited;
      const stalled = err instanceof NotReadyError && err.reason === 'stalled';
      return stalled
        ? `not ready on ${component.readyPath}: no progress for ${(ctx.readyWait.stallMs ?? DEFAULT_STALL_MS) / 1000} s`
        : `not ready on ${component.readyPath} within ${ctx.readyTimeoutMs / 1000} s`;
    }
    return `${describeEnd(run, await run.exited)} before it was ready`;
  }
}
