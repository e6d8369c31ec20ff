import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Messages between a benchmark and its server child (Node IPC, JSON-serialisable). */
export type ParentMessage = { kind: 'call'; id: number; name: string; args: unknown };
export type ChildMessage =
  | { kind: 'ready' }
  | { kind: 'result'; id: number; ok: true; value: unknown }
  | { kind: 'result'; id: number; ok: false; error: string };

/** A forked server process that the benchmark drives by named calls. */
export interface BenchChild {
  readonly pid: number;
  call<T>(name: string, args?: unknown): Promise<T>;
  /** Asks the child to clean up and exit; kills it if it has not exited within 10 s. */
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 10_000;

/**
 * Forks `modulePath` (a compiled module that calls `serveParent`) and waits for it to be
 * ready. Servers run in a child so that the load generator in this process does not share
 * their event loop — in one process the two would distort each other's figures. The
 * child's stdout (its JSON logs) goes to /dev/null, as a deployed service's log would go
 * to a collector; stderr is shown.
 */
export async function forkBenchChild(modulePath: string, execArgv: readonly string[] = []): Promise<BenchChild> {
  const child: ChildProcess = fork(modulePath, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [...execArgv] });
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited = false;

  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench child ${modulePath} exited early (${code})`)));
    child.on('message', (message: ChildMessage) => {
      if (message.kind === 'ready') {
        resolve();
        return;
      }
      const pending = waiting.get(message.id);
      if (!pending) return;
      waiting.delete(message.id);
      if (message.ok) pending.resolve(message.value);
      else pending.reject(new Error(message.error));
    });
  });
  child.once('exit', (code) => {
    exited = true;
    for (const pending of waiting.values()) pending.reject(new Error(`bench child exited (${code})`));
    waiting.clear();
  });
  await ready;

  return {
    pid: child.pid as number,
    call<T>(name: string, args?: unknown): Promise<T> {
      if (exited) return Promise.reject(new Error('bench child has exited'));
      const id = nextId++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        const message: ParentMessage = { kind: 'call', id, name, args };
        child.send(message);
      });
    },
    async stop() {
      if (exited) return;
      const exit = once(child, 'exit');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      child.send({ kind: 'call', id: 0, name: 'stop', args: undefined } satisfies ParentMessage);
      await exit;
      clearTimeout(timer);
    },
  };
}
