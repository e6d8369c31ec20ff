/** Reconnect delays: exponential growth from `baseMs`, capped at `capMs`. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly capMs: number;
  /** Uniform in [0, 1); injected for tests. */
  readonly random: () => number;
}

export const DEFAULT_BACKOFF = { baseMs: 250, capMs: 30_000 } as const;

/**
 * The delay before reconnect attempt `attempt` (0-based), with "full jitter": a uniform
 * draw in [0, min(cap, base·2^attempt)). Jitter spreads a fleet of edges that lost the
 * relay at the same moment, so they do not all come back in the same instant.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  const ceiling = Math.min(options.capMs, options.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(options.random() * ceiling);
}
