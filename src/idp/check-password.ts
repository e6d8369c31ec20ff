import { HashingOverloadedError, type HashingLimiter } from './limit-hashing';
import type { LoginThrottle } from './login-throttle';
import type { IdpUser, UserStore } from './user-store';

/** The outcome of one throttled password check; each caller turns it into its own answer. */
export type PasswordCheck =
  | { readonly outcome: 'ok'; readonly user: IdpUser }
  | { readonly outcome: 'throttled'; readonly retryAfter: number }
  /** The bounded hashing queue is full (or the IdP is closing): nothing was checked. */
  | { readonly outcome: 'overloaded'; readonly retryAfter: number }
  | { readonly outcome: 'invalid' };

/** What a password check needs: the users and the one throttle every sign-in surface shares. */
export interface PasswordCheckDeps {
  readonly users: UserStore;
  readonly throttle: LoginThrottle;
  /** Bounds concurrent scrypt work for every surface together. */
  readonly hashing: HashingLimiter;
}

/** Seconds a client shed for overload should wait: a few scrypt rounds drain the queue. */
export const OVERLOAD_RETRY_AFTER = 1;

/**
 * The throttle's ceilings per kind of key. On loopback every caller shares one address, so
 * one user's typos must not lock everyone out: the tight limit is per (username, address);
 * a username alone (guesses spread over many addresses) gets 4×, an address alone (one
 * source trying many usernames) 20×.
 */
export function throttleLimitFor(maxFailures: number): (key: string) => number {
  return (key) => (key.startsWith('addr:') ? maxFailures * 20 : key.startsWith('user:') ? maxFailures * 4 : maxFailures);
}

/**
 * Checks a password the same way for the JSON token endpoint, the form-encoded password
 * grant and the login page: throttled per (username, address), per username and per
 * address before any scrypt work, so no surface is a cheaper place to guess.
 */
export function createPasswordCheck(deps: PasswordCheckDeps) {
  const { users, throttle, hashing } = deps;
  return async function checkPassword(username: string, password: string, address: string | undefined): Promise<PasswordCheck> {
    const name = username.trim().toLowerCase();
    const from = address ?? 'unknown';
    const userKey = `user:${name}`;
    const pairKey = `pair:${name}|${from}`;
    const keys = [pairKey, userKey, `addr:${from}`];
    const wait = throttle.retryAfter(keys);
    if (wait > 0) return { outcome: 'throttled', retryAfter: wait };

    // Every attempt counts as a failure before the slow password check and is forgiven if
    // it succeeds: a burst of parallel guesses is capped by the limit, not by concurrency.
    throttle.recordFailure(keys);
    let user: IdpUser | undefined;
    try {
      user = await hashing.run(() => users.authenticate(username, password));
    } catch (err) {
      if (!(err instanceof HashingOverloadedError)) throw err;
      // Shed before any password was checked: not a failed guess, so it must not count.
      throttle.forgive(keys);
      return { outcome: 'overloaded', retryAfter: OVERLOAD_RETRY_AFTER };
    }
    if (!user) return { outcome: 'invalid' };
    throttle.forgive(keys);
    throttle.reset(pairKey);
    throttle.reset(userKey);
    return { outcome: 'ok', user };
  };
}

/** A throttled password check (see {@link createPasswordCheck}). */
export type CheckPassword = ReturnType<typeof createPasswordCheck>;
