import { backoffDelay } from './backoff';
import type { Timers } from './timers';

/**
 * How a request that must end by a deadline (a relay command's) is tried: each try gets half
 * of the time left — so a control plane that is merely slow still has the longest wait at the
 * first try, and a request that hangs (an answer lost, a connection stuck behind a dead peer)
 * leaves time for another — and never less than `minTryMs`; between tries a jittered pause
 * from `pauseBaseMs` doubling up to `pauseCapMs`, so a fleet of edges that timed out together
 * does not ask again in the same instant.
 */
export const DEADLINE_RETRY = { minTryMs: 500, pauseBaseMs: 100, pauseCapMs: 1_000 } as const;

/** A request that got no response; `message` is the real cause, for the command's result and the log. */
export class FetchFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FetchFailure';
  }
}

/** What {@link fetchBeforeDeadline} needs besides the request. */
export interface FetchBeforeDeadlineOptions {
  /** The longest one try waits, and the only try's wait when there is no deadline. */
  readonly timeoutMs: number;
  /** When the answer must be in (on `now`'s clock); absent: one try of `timeoutMs`. */
  readonly deadline: number | undefined;
  /** Aborts the request for good (the edge is closing). */
  readonly shutdown: AbortSignal;
  readonly timers: Timers;
  readonly now: () => number;
  /** Uniform in [0, 1), for the pause's jitter. */
  readonly random: () => number;
}

/** A response whose try's timer still runs while its body is read: call `release` once it is. */
export interface TimedResponse {
  readonly response: Response;
  /** True once the try's time ran out (the body read then fails). */
  readonly timedOut: () => boolean;
  /** The try's time limit, for the message when it ran out while the body was read. */
  readonly limitMs: number;
  release(): void;
}

/** How long the next try may wait, given the time left before the deadline. */
function tryLimit(options: FetchBeforeDeadlineOptions, remaining: number): number {
  if (options.deadline === undefined) return options.timeoutMs;
  const { minTryMs } = DEADLINE_RETRY;
  const share = remaining >= 2 * minTryMs ? Math.floor(remaining / 2) : remaining;
  return Math.min(options.timeoutMs, Math.max(minTryMs, share));
}

/** The network error's code (`ECONNREFUSED`, `UND_ERR_SOCKET`…), never its long message. */
function networkCode(err: unknown): string {
  return (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name;
}

/** Waits `ms` on the injected timers, or until shutdown. */
function pauseFor(ms: number, options: FetchBeforeDeadlineOptions): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      options.timers.clearTimeout(timer);
      options.shutdown.removeEventListener('abort', done);
      resolve();
    };
    const timer = options.timers.setTimeout(done, ms);
    options.shutdown.addEventListener('abort', done);
  });
}

/**
 * `fetch` with a time limit per try, tried again after a try that timed out as long as the
 * deadline leaves `minTryMs` for another. Any other failure (refused, reset) is not retried:
 * it came at once and says what is wrong. Throws a {@link FetchFailure} naming the cause, the
 * request and the tries. The limits run on the injected timers, so a test decides when a
 * try times out.
 */
export async function fetchBeforeDeadline(url: string, what: string, init: RequestInit, options: FetchBeforeDeadlineOptions): Promise<TimedResponse> {
  const { timers, now } = options;
  const started = now();
  for (let tries = 1; ; tries += 1) {
    const remaining = options.deadline === undefined ? options.timeoutMs : options.deadline - now();
    const limitMs = tryLimit(options, remaining);
    const timeout = new AbortController();
    const timer = timers.setTimeout(() => timeout.abort(), limitMs);
    const release = () => timers.clearTimeout(timer);
    try {
      const response = await fetch(url, { ...init, signal: AbortSignal.any([timeout.signal, options.shutdown]) });
      return { response, timedOut: () => timeout.signal.aborted, limitMs, release };
    } catch (err) {
      release();
      if (options.shutdown.aborted) throw new FetchFailure(`the edge is closing (${what})`);
      if (!timeout.signal.aborted) throw new FetchFailure(`control plane unreachable (${networkCode(err)}; ${what})`);
      const spent = tries === 1 ? '' : `; ${tries} tries in ${now() - started} ms`;
      const failure = new FetchFailure(`control plane did not answer within ${limitMs} ms (${what}${spent})`);
      if (options.deadline === undefined) throw failure;
      const pause = backoffDelay(tries - 1, { baseMs: DEADLINE_RETRY.pauseBaseMs, capMs: DEADLINE_RETRY.pauseCapMs, random: options.random });
      if (options.deadline - now() - pause < DEADLINE_RETRY.minTryMs) throw failure;
      await pauseFor(pause, options);
      if (options.shutdown.aborted) throw new FetchFailure(`the edge is closing (${what})`);
    }
  }
}
