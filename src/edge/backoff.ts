/** Reconnect delays: exponential growth from `baseMs`, capped at `capMs`. */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly capMs: number;
  /** Uniform in [0, 1); injected for tests. */
  readonly random: () => number;
}

export const DEFAULT_BACKOFF = { baseMs: 250, capMs: 30_000 } as const;

/** The ceiling of attempt `attempt` (0-based): min(cap, base·2^attempt). */
export function backoffCeiling(attempt: number, options: Omit<BackoffOptions, 'random'>): number {
  return Math.min(options.capMs, options.baseMs * 2 ** Math.min(attempt, 30));
}

/**
 * The delay before reconnect attempt `attempt` (0-based), with "full jitter": a uniform
 * draw in [0, {@link backoffCeiling}). Jitter spreads a fleet of edges that lost the
 * relay at the same moment, so they do not all come back in the same instant.
 */
export function backoffDelay(attempt: number, options: BackoffOptions): number {
  return Math.floor(options.random() * backoffCeiling(attempt, options));
}
