import { randomUUID } from 'node:crypto';
import type { EdgeStatus } from '../relay-protocol';
import { edgeTimeout, tooManyPending } from './relay-errors';

interface Waiter<T> {
  resolve(result: T | PromiseLike<T>): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Requests sent to one edge that wait for their answer (a command's status by default), keyed by request id. */
export interface PendingCommands<T = EdgeStatus> {
  readonly size: number;
  /**
   * Reserves a request id and a promise that settles on the result or the timeout (the
   * map's own, or a shorter `timeoutMs`: a broadcast waits only until its deadline), and
   * the wait that applies (`timeoutMs` of the command frame: the edge's budget).
   */
  add(timeoutMs?: number): { requestId: string; result: Promise<T>; timeoutMs: number };
  /** Whether a request with this id is waiting (not yet settled nor timed out). */
  has(requestId: string): boolean;
  /**
   * Settles one request (its timeout stops here; a promise given settles it when it does);
   * false when the id is unknown (already timed out, or never sent).
   */
  resolve(requestId: string, result: T | PromiseLike<T>): boolean;
  reject(requestId: string, err: Error): boolean;
  /** Fails every waiting command, e.g. because the socket closed. */
  rejectAll(err: Error): void;
}

/**
 * The map behind {@link createPendingCommands}: a class, so the methods live once on its
 * prototype — every connected edge holds three of these, and closures per instance cost
 * each edge ~1 KB of heap (docs/benchmarks-history.md, "Relay at scale").
 */
class PendingCommandMap<T> implements PendingCommands<T> {
  private readonly waiting = new Map<string, Waiter<T>>();

  constructor(private readonly options: { readonly timeoutMs: number; readonly max: number }) {}

  get size(): number {
    return this.waiting.size;
  }

  add(timeoutMs = this.options.timeoutMs): { requestId: string; result: Promise<T>; timeoutMs: number } {
    if (this.waiting.size >= this.options.max) throw tooManyPending();
    const requestId = randomUUID();
    const wait = Math.max(1, Math.min(timeoutMs, this.options.timeoutMs));
    const result = new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => this.take(requestId)?.reject(edgeTimeout(wait)), wait);
      this.waiting.set(requestId, { resolve, reject, timer });
    });
    return { requestId, result, timeoutMs: wait };
  }

  has(requestId: string): boolean {
    return this.waiting.has(requestId);
  }

  resolve(requestId: string, result: T | PromiseLike<T>): boolean {
    const waiter = this.take(requestId);
    waiter?.resolve(result);
    return waiter !== undefined;
  }

  reject(requestId: string, err: Error): boolean {
    const waiter = this.take(requestId);
    waiter?.reject(err);
    return waiter !== undefined;
  }

  rejectAll(err: Error): void {
    for (const requestId of [...this.waiting.keys()]) this.take(requestId)?.reject(err);
  }

  private take(requestId: string): Waiter<T> | undefined {
    const waiter = this.waiting.get(requestId);
    if (!waiter) return undefined;
    this.waiting.delete(requestId);
    clearTimeout(waiter.timer);
    return waiter;
  }
}

/**
 * A bounded map of waiting commands. Request ids let several commands to one edge be in
 * flight at once; the bound keeps a slow or silent edge from holding unlimited memory.
 */
export function createPendingCommands<T = EdgeStatus>(options: { timeoutMs: number; max: number }): PendingCommands<T> {
  return new PendingCommandMap<T>(options);
}
