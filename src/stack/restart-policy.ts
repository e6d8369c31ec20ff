/**
 * How often the launcher restarts a component that died after start-up. The numbers are the
 * docs/reference/limits.md's row "restarts of a component that dies after start-up".
 */
export interface RestartPolicy {
  /** Restarts allowed per component in any window of `windowMs`; one more and it stays down. */
  readonly maxRestarts: number;
  readonly windowMs: number;
  /** Wait before the first restart; each further one waits twice as long, up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** A run that lasted this long was a good one: the next wait starts again at `firstDelayMs`. */
  readonly healthyAfterMs: number;
}

/** At most 5 restarts a minute, 0.25 s doubling to 5 s, back to 0.25 s after 30 s of good running. */
export const DEFAULT_RESTART_POLICY: RestartPolicy = Object.freeze({
  maxRestarts: 5,
  windowMs: 60_000,
  firstDelayMs: 250,
  maxDelayMs: 5_000,
  healthyAfterMs: 30_000,
});

/** The default policy with `overrides`, checked once at start-up: a bad one throws before anything starts. */
export function restartPolicy(overrides: Partial<RestartPolicy> = {}): RestartPolicy {
  const policy = { ...DEFAULT_RESTART_POLICY, ...overrides };
  const { maxRestarts, windowMs, firstDelayMs, maxDelayMs, healthyAfterMs } = policy;
  const whole = [maxRestarts, windowMs, firstDelayMs, maxDelayMs, healthyAfterMs].every((n) => Number.isInteger(n) && n >= 0);
  if (!whole || windowMs === 0 || maxDelayMs < firstDelayMs) throw new Error(`invalid restart policy: ${JSON.stringify(policy)}`);
  return Object.freeze(policy);
}

/** What to do about one death: restart after `delayMs` (the `restart`-th in the window), or stay down. */
export type RestartPlan =
  | { readonly action: 'restart'; readonly delayMs: number; readonly restart: number }
  | { readonly action: 'stay-down'; readonly restarts: number };

/** One component's restart history. */
export interface RestartBudget {
  /** Plans the answer to a death at `now` of a run that had been up (ready) for `upMs`. */
  afterDeath(now: number, upMs: number): RestartPlan;
}

/**
 * Tracks one component's restarts against `policy` (from {@link restartPolicy}). Each restart is recorded at the time it
 * is planned to happen; counting those of the window that ends at the death is a superset of
 * those of any window that ends at the restart, so no window ever holds more than `maxRestarts`.
 */
export function restartBudget(policy: RestartPolicy): RestartBudget {
  let restarts: number[] = [];
  let nextDelayMs = policy.firstDelayMs;
  return {
    afterDeath(now, upMs) {
      if (upMs >= policy.healthyAfterMs) nextDelayMs = policy.firstDelayMs;
      restarts = restarts.filter((at) => at > now - policy.windowMs);
      if (restarts.length >= policy.maxRestarts) return { action: 'stay-down', restarts: restarts.length };
      const delayMs = nextDelayMs;
      nextDelayMs = Math.min(nextDelayMs * 2, policy.maxDelayMs);
      restarts.push(now + delayMs);
      return { action: 'restart', delayMs, restart: restarts.length };
    },
  };
}

/** "minute" for the default window, else "60 s"-style text: the death lines name the window. */
export function windowText(policy: RestartPolicy): string {
  return policy.windowMs === 60_000 ? 'minute' : `${policy.windowMs / 1000} s`;
}
