import type { Component } from './components';
import { runComponent, waitUntilReady, type RunningComponent } from './run-component';

/** What {@link runStack} needs: the components with their entry files, and where logs go. */
export interface StackOptions {
  readonly components: readonly { readonly component: Component; readonly file: string }[];
  readonly host: string;
  readonly logDir: string;
  readonly readyTimeoutMs: number;
  /** Called once every component answers; prints the banner. */
  readonly onReady: (started: readonly RunningComponent[]) => void;
  /**
   * Components whose death after start-up is reported but does not stop the stack (the nodes
   * of a cluster: killing one is how failover is tried). Default: none.
   */
  readonly expendable?: (component: Component) => boolean;
  /** Runs after every component has stopped, before the launcher exits (servers it started itself). */
  readonly onStopped?: () => Promise<void>;
}

const STOP_GRACE_MS = 8000;

/**
 * Starts the components in order, each awaited until ready, and owns them until the
 * launcher ends: SIGINT, SIGTERM and SIGHUP stop every child and wait for them; a child
 * that dies after start-up takes the stack down; a launcher that exits any other way
 * still signals its children (and they watch their parent too, see `watch-parent`).
 */
export async function runStack(options: StackOptions): Promise<void> {
  const running: RunningComponent[] = [];
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
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
    for (const r of running) if (r.child.exitCode === null) r.child.kill('SIGTERM');
  });

  for (const { component, file } of options.components) {
    if (stopping) return;
    process.stdout.write(`starting ${component.label} … `);
    const r = runComponent(component, file, options.logDir);
    running.push(r);
    try {
      // While it starts, waitUntilReady alone reports a death, with this run's log lines.
      await waitUntilReady(r, options.host, options.readyTimeoutMs);
    } catch (err) {
      if (stopping) return;
      console.error(`failed\n${(err as Error).message}`);
      await stopAll(1);
      return;
    }
    console.log('ready');
    // From now on a component that dies takes the stack down with it, loudly.
    void r.exited.then((code) => {
      if (stopping) return;
      const how = code === null ? `killed by ${r.child.signalCode ?? 'a signal'}` : `exit code ${code}`;
      if (options.expendable?.(component)) {
        console.error(`\n${component.label} stopped (${how}); the stack goes on without it. See ${r.logFile}.`);
        return;
      }
      console.error(`\n${component.label} stopped (${how}); see ${r.logFile}. Stopping the stack.`);
      void stopAll(1);
    });
  }
  options.onReady(running);
}
