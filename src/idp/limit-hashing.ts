/**
 * Bounds password-hashing work. scrypt runs on libuv's thread pool (4 threads unless
 * `UV_THREADPOOL_SIZE` says otherwise); hashes beyond it only wait there, where nothing can
 * shed or cancel them, so a flood used to queue without limit and delay every genuine
 * sign-in and shutdown. Here at most `maxInFlight` tasks run, at most `maxQueued` wait in
 * order, and the rest are refused at once, before any hashing starts.
 */
export interface HashingLimiter {
  /**
   * Runs `task` now or after the tasks ahead of it. Rejects at once with
   * {@link HashingOverloadedError} when the queue is full or the limiter is closed.
   */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Tasks running now (for tests and metrics). */
  inFlight(): number;
  /** Tasks waiting (for tests and metrics). */
  queued(): number;
  /** Refuses new tasks and abandons the queued ones (on shutdown); running tasks finish. */
  close(): void;
}

/** Settings of {@link createHashingLimiter}. */
export interface HashingLimiterOptions {
  readonly maxInFlight: number;
  readonly maxQueued: number;
}

/** Hashing refused because the limiter is full or closing; the caller should answer 503. */
export class HashingOverloadedError extends Error {
  constructor(readonly reason: 'overloaded' | 'closing') {
    super(reason === 'closing' ? 'password hashing stopped: shutting down' : 'password hashing queue full');
    this.name = 'HashingOverloadedError';
  }
}

interface Waiter {
  start(): void;
  abandon(err: Error): void;
}

/** Builds a {@link HashingLimiter}: a counting semaphore with a bounded FIFO queue. */
export function createHashingLimiter(options: HashingLimiterOptions): HashingLimiter {
  const { maxInFlight, maxQueued } = options;
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1 || !Number.isInteger(maxQueued) || maxQueued < 0) {
    throw new Error('invalid hashing limiter options');
  }
  let running = 0;
  let closed = false;
  const waiting: Waiter[] = [];

  function release(): void {
    running -= 1;
    const next = waiting.shift();
    if (next) next.start();
  }

  function begin<T>(task: () => Promise<T>): Promise<T> {
    running += 1;
    let result: Promise<T>;
    try {
      result = task();
    } catch (err) {
      result = Promise.reject(err);
    }
    return result.finally(release);
  }

  return {
    run(task) {
      if (closed) return Promise.reject(new HashingOverloadedError('closing'));
      if (running < maxInFlight) return begin(task);
      if (waiting.length >= maxQueued) return Promise.reject(new HashingOverloadedError('overloaded'));
      return new Promise((resolve, reject) => {
        waiting.push({ start: () => begin(task).then(resolve, reject), abandon: reject });
      });
    },
    inFlight: () => running,
    queued: () => waiting.length,
    close() {
      closed = true;
      for (const waiter of waiting.splice(0)) waiter.abandon(new HashingOverloadedError('closing'));
    },
  };
}
