/**
 * How much the IdP's in-memory tables hold. Each bound is per table (codes, refresh-token
 * families, sessions, open login forms), and each table sheds its largest holder first
 * (see fair-expiring-map.ts), so these protect memory without letting one user or one
 * address push out anyone else's grant (docs/conventions.md §6).
 */
export interface StoreLimits {
  /** Entries one table holds at most. */
  readonly maxEntries: number;
  /** Codes, refresh-token families (each per client) and sessions one user may hold. */
  readonly maxPerUser: number;
  /** Open login forms one client address (an IPv6 /64) may hold. */
  readonly maxFormsPerAddress: number;
}

/** Entries per table: a few MiB of memory at most. */
export const MAX_ENTRIES = 10_000;
/** Per user and client: a person's browsers and devices stay well below. */
export const MAX_PER_USER = 20;
/** Open login forms one client address may hold (a person with several tabs stays well below). */
export const MAX_PENDING_LOGINS_PER_ADDRESS = 20;

/** The defaults; tests pass smaller ones. */
export const DEFAULT_STORE_LIMITS: StoreLimits = Object.freeze({
  maxEntries: MAX_ENTRIES,
  maxPerUser: MAX_PER_USER,
  maxFormsPerAddress: MAX_PENDING_LOGINS_PER_ADDRESS,
});

/** The defaults with `overrides` applied, checked once at start-up. */
export function storeLimits(overrides: Partial<StoreLimits> = {}): StoreLimits {
  const limits = { ...DEFAULT_STORE_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`invalid IdP store limit ${name}: ${String(value)}`);
  }
  return Object.freeze(limits);
}
