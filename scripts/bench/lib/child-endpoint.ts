import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { ChildMessage, ParentMessage } from './child-harness';

/** Named operations a server child offers to its benchmark. */
export type ChildHandlers = Record<string, (args: never) => unknown>;

/** No child outlives a run that went wrong: it exits on its own after this long. */
const MAX_LIFETIME_MS = 10 * 60_000;

function send(message: ChildMessage): void {
  process.send?.(message);
}

/**
 * The child side of `forkBenchChild`: answers calls from the parent with `handlers`
 * and, on `stop`, runs `cleanup` and exits. The child also exits by itself when the
 * parent goes away (IPC disconnect) or after {@link MAX_LIFETIME_MS}.
 */
export function serveParent(handlers: ChildHandlers, cleanup: () => Promise<void>): void {
  if (!process.send) throw new Error('this module runs as a child of a benchmark script');
  setTimeout(() => process.exit(3), MAX_LIFETIME_MS).unref();
  process.once('disconnect', () => process.exit(2));

  process.on('message', (message: ParentMessage) => {
    if (message.kind !== 'call') return;
    if (message.name === 'stop') {
      cleanup().finally(() => process.exit(0));
      return;
    }
    // Every child reports the CPU time it has used (µs, user + system), for per-request costs.
    const handler = message.name === 'cpu' ? () => cpuMicros() : handlers[message.name];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown call ${message.name}`);
        return handler(message.args as never);
      })
      .then(
        (value) => send({ kind: 'result', id: message.id, ok: true, value: value ?? null }),
        (err: unknown) => send({ kind: 'result', id: message.id, ok: false, error: err instanceof Error ? err.message : String(err) }),
      );
  });
  send({ kind: 'ready' });
}

function cpuMicros(): number {
  const { user, system } = process.cpuUsage();
  return user + system;
}

/**
 * Process memory in bytes, measured after the process has settled: with `--expose-gc`,
 * full collections spaced out so V8 can hand freed pages back, until RSS stops
 * shrinking (at most ~2 s). Without settling, RSS still falls from start-up garbage
 * and a before/after difference means nothing.
 */
export async function measureMemory(): Promise<{ rss: number; heapUsed: number; external: number; gc: boolean }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  let rss = process.memoryUsage().rss;
  for (let i = 0; gc && i < 10; i += 1) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = process.memoryUsage().rss;
    if (Math.abs(rss - now) < 256 * 1024) break;
    rss = now;
  }
  const usage = process.memoryUsage();
  return { rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external, gc: gc !== undefined };
}

/** The event loop's stalls and the GC's pauses between two calls of a {@link stallWatch}. */
export interface Stalls {
  /** Event-loop delay (ms): how late a 1 ms timer fired, as `monitorEventLoopDelay` samples it. */
  readonly loopDelayP99: number;
  readonly loopDelayMax: number;
  /** GC pauses: how many, their total and the longest (ms). */
  readonly gcCount: number;
  readonly gcTotalMs: number;
  readonly gcMaxMs: number;
}

/**
 * Watches this process's event loop and GC from creation on; each call returns what it saw
 * since the previous call (or since creation) and starts over. What a child's latency tail
 * is made of: a stall of the loop delays every request waiting behind it.
 */
export function stallWatch(): () => Stalls {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let gcCount = 0;
  let gcTotalMs = 0;
  let gcMaxMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcCount += 1;
      gcTotalMs += entry.duration;
      gcMaxMs = Math.max(gcMaxMs, entry.duration);
    }
  }).observe({ entryTypes: ['gc'] });
  return () => {
    const seen: Stalls = { loopDelayP99: delay.percentile(99) / 1e6, loopDelayMax: delay.max / 1e6, gcCount, gcTotalMs, gcMaxMs };
    delay.reset();
    gcCount = 0;
    gcTotalMs = 0;
    gcMaxMs = 0;
    return seen;
  };
}
