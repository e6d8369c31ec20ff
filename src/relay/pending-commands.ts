import { randomUUID } from 'node:crypto';
import type { EdgeStatus } from '../relay-protocol';
import { edgeTimeout, tooManyPending } from './relay-errors';

interface Waiter<T> {
  resolve(result: T): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Requests sent to one edge that wait for their answer (a command's status by default), keyed by request id. */
export interface PendingCommands<T = EdgeStatus> {
  readonly size: number;
  /**
   * Reserves a request id and a promise that settles on the result or the timeout (the
   * map's own, or a shorter `timeoutMs`: a broadcast waits only until its deadline).
   */
  add(timeoutMs?: number): { requestId: string; result: Promise<T> };
  /** Settles one request; false when the id is unknown (already timed out, or never sent). */
  resolve(requestId: string, result: T): boolean;
  reject(requestId: string, err: Error): boolean;
  /** Fails every waiting command, e.g. because the socket closed. */
  rejectAll(err: Error): void;
}

/**
 * A bounded map of waiting commands. Request ids let several commands to one edge be in
 * flight at once; the bound keeps a slow or silent edge from holding unlimited memory.
 */
export function createPendingCommands<T = EdgeStatus>(options: { timeoutMs: number; max: number }): PendingCommands<T> {
  const waiting = new Map<string, Waiter<T>>();

  function take(requestId: string): Waiter<T> | undefined {
    const waiter = waiting.get(requestId);
    if (!waiter) return undefined;
    waiting.delete(requestId);
    clearTimeout(waiter.timer);
    return waiter;
  }

  return {
    get size() {
      return waiting.size;
    },
    add(timeoutMs = options.timeoutMs) {
      if (waiting.size >= options.max) throw tooManyPending();
      const requestId = randomUUID();
      const wait = Math.max(1, Math.min(timeoutMs, options.timeoutMs));
      const result = new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => take(requestId)?.reject(edgeTimeout(wait)), wait);
        waiting.set(requestId, { resolve, reject, timer });
      });
      return { requestId, result };
    },
    resolve(requestId, result) {
      const waiter = take(requestId);
      waiter?.resolve(result);
      return waiter !== undefined;
    },
    reject(requestId, err) {
      const waiter = take(requestId);
      waiter?.reject(err);
      return waiter !== undefined;
    },
    rejectAll(err) {
      for (const requestId of [...waiting.keys()]) take(requestId)?.reject(err);
    },
  };
}
