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
 *
 * Only a wrong password counts as a failure, and only once checked. Checks under way hold
 * the failures a key has left, so parallel guesses still stop exactly at the limit: an
 * attempt that finds them all held waits for one to end (inside its hashing slot, so the
 * hashing bound caps the waiting too, with 503), then is either locked out (429) or checked.
 * Concurrent correct sign-ins thus all succeed or are shed as busy, never refused as failed.
 */
export function createPasswordCheck(deps: PasswordCheckDeps) {
  const { users, throttle, hashing } = deps;
  return async function checkPassword(username: string, password: string, address: string | undefined): Promise<PasswordCheck> {
    const name = username.trim().toLowerCase();
    const from = address ?? 'unknown';
    const userKey = `user:${name}`;
    const pairKey = `pair:${name}|${from}`;
    const keys = [pairKey, userKey, `addr:${from}`];
    // A locked key is refused before it takes a place in the hashing queue.
    const wait = throttle.retryAfter(keys);
    if (wait > 0) return { outcome: 'throttled', retryAfter: wait };
    // The first check after a start derives the seeded users' hashes (user-store.ts), outside the hashing bound.
    await users.prepare?.();

    try {
      return await hashing.run(async (): Promise<PasswordCheck> => {
        for (;;) {
          const attempt = throttle.begin(keys);
          if (attempt.kind === 'locked') return { outcome: 'throttled', retryAfter: attempt.retryAfter };
          if (attempt.kind === 'begun') break;
          // The failures left are held by checks being hashed right now: one ends within a round.
          await throttle.settled(keys);
        }
        let user: IdpUser | undefined;
        try {
          user = await users.authenticate(username, password);
        } catch (err) {
          // Our failure, not a guess: it must not count against the user.
          throttle.end(keys, false);
          throw err;
        }
        throttle.end(keys, user === undefined);
        if (!user) return { outcome: 'invalid' };
        throttle.reset(pairKey);
        throttle.reset(userKey);
        return { outcome: 'ok', user };
      });
    } catch (err) {
      // Shed before any password was checked: not a failed guess, so nothing was counted.
      if (!(err instanceof HashingOverloadedError)) throw err;
      return { outcome: 'overloaded', retryAfter: OVERLOAD_RETRY_AFTER };
    }
  };
}

/** A throttled password check (see {@link createPasswordCheck}). */
export type CheckPassword = ReturnType<typeof createPasswordCheck>;
