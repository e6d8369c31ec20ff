import type { Component } from './components';
import { restartPolicy, type RestartPolicy } from './restart-policy';
import { runComponent, waitUntilReady, type ReadyWaitOptions, type RunningComponent } from './run-component';
import { superviseComponent } from './supervise-component';

/** What {@link runStack} needs: the components with their entry files, and where logs go. */
export interface StackOptions {
  readonly components: readonly { readonly component: Component; readonly file: string }[];
  readonly host: string;
  readonly logDir: string;
  /**
   * How long a component may take in all to answer its ready path, at start and after a
   * restart, while it makes progress (CPU or log output); one that makes none for
   * `readyWait.stallMs` (default 30 s) is given up on sooner (`waitUntilReady`).
   */
  readonly readyTimeoutMs: number;
  /** The stall bound, and the setting a failure names as raising `readyTimeoutMs`. */
  readonly readyWait?: Pick<ReadyWaitOptions, 'stallMs' | 'timeoutSetting'>;
  /**
   * Runs once every component answers its ready path, before `onReady`: a ready path says a
   * component can serve, not that it is connected (an edge serving its last good state
   * answers while the relay refuses it). Resolves with lines for `onReady`; a rejection means
   * the stack is not up: its message is printed, every component stopped, and the launcher
   * exits 1 instead of printing the banner.
   */
  readonly verify?: { readonly label: string; readonly run: (started: readonly RunningComponent[]) => Promise<readonly string[]> };
  /** Called once every component answers (and `verify` passed), with their first runs and what `verify` found; prints the banner. */
  readonly onReady: (started: readonly RunningComponent[], verified: readonly string[]) => void;
  /** Restarts of a component that dies after start-up, over the defaults of {@link restartPolicy}. */
  readonly restart?: Partial<RestartPolicy>;
  /** Runs after every component has stopped, before the launcher exits (servers it started itself). */
  readonly onStopped?: () => Promise<void>;
}

const STOP_GRACE_MS = 8000;

/** A component that could not be started: its label, and why (the message of `cause`). */
class StartFailure extends Error {
  constructor(
    readonly label: string,
    cause: Error,
  ) {
    super(cause.message);
  }
}

/**
 * Starts the components, each once those it waits for are ready (`Component.waitsFor`; by
 * default the one before it), and reports them in order; then runs `verify`, and owns them
 * until the launcher ends: a component that fails at start, or a failed `verify`, stops the
 * start; one that dies later is restarted within a budget (`superviseComponent`) while the
 * others go on serving; SIGINT, SIGTERM and SIGHUP stop every child, a restarted one
 * included, and wait for them; a launcher that exits any other way still signals its
 * children (and they watch their parent too, see `watch-parent`).
 */
export async function runStack(options: StackOptions): Promise<void> {
  const policy = restartPolicy(options.restart);
  // The latest run of each component: what stopping has to reach.
  const current = new Map<string, RunningComponent>();
  let stopping = false;
  let requestStop!: () => void;
  const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    requestStop();
    const running = [...current.values()];
    for (const r of [...running].reverse()) r.child.kill('SIGTERM');
    const grace = new Promise((r) => setTimeout(r, STOP_GRACE_MS).unref());
    await Promise.race([Promise.all(running.map((r) => r.exited)), grace]);
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    // Even a killed child is gone only once it exited: onStopped may remove what it used.
    await Promise.all(running.map((r) => r.exited));
    await options.onStopped?.().catch((err: unknown) => console.error((err as Error).message));
    process.exit(code);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void stopAll(0));
  process.once('exit', () => {
    for (const r of current.values()) if (r.child.exitCode === null) r.child.kill('SIGTERM');
  });

  const context = {
    host: options.host,
    logDir: options.logDir,
    readyTimeoutMs: options.readyTimeoutMs,
    readyWait: options.readyWait ?? {},
    policy,
    stopping: () => stopping,
    stopRequested,
    started: (run: RunningComponent) => current.set(run.component.name, run),
  };
  let down = 0;
  const started: RunningComponent[] = [];
  // Each component is started once those it waits for are ready, and reported in list order;
  // the first start-up failure, of whichever component, stops the start at once.
  const ready = new Map<string, Promise<RunningComponent>>();
  let failed!: (failure: StartFailure) => void;
  const firstFailure = new Promise<never>((_resolve, reject) => (failed = reject));
  firstFailure.catch(() => undefined);
  options.components.forEach(({ component, file }, index) => {
    const waitsFor = component.waitsFor ?? (index === 0 ? [] : [options.components[index - 1]!.component.name]);
    const waited = waitsFor.map((name) => ready.get(name) ?? Promise.reject(new StartFailure(component.label, new Error(`it waits for "${name}", which is not started before it`))));
    const run = Promise.all(waited).then(async () => {
      if (stopping) return new Promise<never>(() => undefined);
      try {
        const r = runComponent(component, file, options.logDir);
        current.set(component.name, r);
        // While it starts, waitUntilReady alone reports a death, with this run's log lines.
        await waitUntilReady(r, options.host, options.readyTimeoutMs, options.readyWait);
        return r;
      } catch (err) {
        throw new StartFailure(component.label, err as Error);
      }
    });
    run.catch((failure: unknown) => failed(failure as StartFailure));
    ready.set(component.name, run);
  });
  for (const { component, file } of options.components) {
    if (stopping) return;
    process.stdout.write(`starting ${component.label} … `);
    let r: RunningComponent;
    try {
      r = await Promise.race([ready.get(component.name)!, firstFailure]);
    } catch (failure) {
      if (stopping) return;
      // At first start a failure is a mistake to fix (a taken port, a bad variable), not a crash to retry.
      const { label, message } = failure as StartFailure;
      console.error(`${label === component.label ? 'failed' : 'stopped'}\n${message}`);
      await stopAll(1);
      return;
    }
    console.log('ready');
    started.push(r);
    // From now on a death is answered by restarts, even while the later components start.
    void superviseComponent(r, file, context).then(() => {
      // With nothing left to run the launcher would linger, or exit 0 once its event loop emptied.
      if (++down === options.components.length && !stopping) {
        console.error('Every component is down; stopping.');
        void stopAll(1);
      }
    });
  }
  let verified: readonly string[] = [];
  if (options.verify !== undefined) {
    process.stdout.write(`${options.verify.label} … `);
    try {
      verified = await options.verify.run(started);
    } catch (err) {
      if (stopping) return;
      console.error(`failed\n${(err as Error).message}`);
      await stopAll(1);
      return;
    }
    console.log('done');
  }
  if (stopping) return;
  options.onReady(started, verified);
}
