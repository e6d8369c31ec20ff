import { randomUUID } from 'node:crypto';
import type { EdgeStatus } from '../relay-protocol';
import { edgeTimeout, tooManyPending } from './relay-errors';

interface Waiter {
  resolve(status: EdgeStatus): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/** Commands sent to one edge that wait for their `command_result`, keyed by request id. */
export interface PendingCommands {
  readonly size: number;
  /** Reserves a request id and a promise that settles on the result or the timeout. */
  add(): { requestId: string; result: Promise<EdgeStatus> };
  /** Settles one command; false when the id is unknown (already timed out, or never sent). */
  resolve(requestId: string, status: EdgeStatus): boolean;
  reject(requestId: string, err: Error): boolean;
  /** Fails every waiting command, e.g. because the socket closed. */
  rejectAll(err: Error): void;
}

/**
 * A bounded map of waiting commands. Request ids let several commands to one edge be in
 * flight at once; the bound keeps a slow or silent edge from holding unlimited memory.
 */
export function createPendingCommands(options: { timeoutMs: number; max: number }): PendingCommands {
  const waiting = new Map<string, Waiter>();

  function take(requestId: string): Waiter | undefined {
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
    add() {
      if (waiting.size >= options.max) throw tooManyPending();
      const requestId = randomUUID();
      const result = new Promise<EdgeStatus>((resolve, reject) => {
        const timer = setTimeout(() => take(requestId)?.reject(edgeTimeout(options.timeoutMs)), options.timeoutMs);
        waiting.set(requestId, { resolve, reject, timer });
      });
      return { requestId, result };
    },
    resolve(requestId, status) {
      const waiter = take(requestId);
      waiter?.resolve(status);
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
