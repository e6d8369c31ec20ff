import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Clock } from '../clock';
import type { IdpUser } from '../user-store';
import { createFairExpiringMap } from './fair-expiring-map';
import type { AuthorizeRequest } from './read-authorize-request';
import { LOGIN_REQUEST_TTL_SECONDS, SESSION_TTL_SECONDS } from './oauth-paths';
import { DEFAULT_STORE_LIMITS, type StoreLimits } from './store-limits';

/** Cookie naming the browser's IdP session. */
export const SESSION_COOKIE = 'outpost_session';
/** Cookie naming the login page the browser was shown (binds its CSRF token). */
export const LOGIN_COOKIE = 'outpost_login';

/** A signed-in browser at the IdP. */
export interface IdpSession {
  readonly user: IdpUser;
  /** Seconds since the epoch when the password was entered (`auth_time`). */
  readonly authTime: number;
}

/** A login page waiting for its form: the authorization request and the form's CSRF token. */
export interface PendingLogin {
  readonly request: AuthorizeRequest;
  readonly csrfToken: string;
}

/** A new login form, or why there is none. */
export type StartedLogin =
  | { readonly ok: true; readonly id: string; readonly csrfToken: string }
  /** The table is full of other addresses' single forms: come back in `retryAfter` seconds. */
  | { readonly ok: false; readonly retryAfter: number };

/**
 * Sessions and pending logins, in memory and short-lived; a restart asks for the password
 * again. Both tables are shared fairly (fair-expiring-map.ts): sessions are bounded per user,
 * open forms per client address, and a full table sheds whoever holds the most.
 */
export interface LoginSessions {
  /** A new session id, or undefined when the table is full of other users' single sessions. */
  startSession(session: IdpSession): string | undefined;
  session(id: string | undefined): IdpSession | undefined;
  endSession(id: string | undefined): void;
  /**
   * Opens a login form for `request`. At most {@link StoreLimits.maxFormsPerAddress} forms are
   * open per client address: more evict that address's oldest, and a full table takes from
   * the addresses with the most open forms, so a flood of `/authorize` from one source or
   * many cannot push out a quiet address's form. Refused only when every open form is the
   * single one of its address.
   */
  startLogin(request: AuthorizeRequest, address?: string): StartedLogin;
  /**
   * The pending login named by the cookie when the form's CSRF token matches (synchronizer
   * token pattern); consumed, so a form posts once.
   */
  takeLogin(id: string | undefined, csrfToken: unknown): PendingLogin | undefined;
}

const random = (): string => randomBytes(32).toString('base64url');

function sameSecret(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Whose bound a form counts against: an IPv4 address, or an IPv6 address's /64 — one link,
 * on which a host may pick any of 2^64 interface ids (RFC 4291 §2.5.4), so each address
 * alone would be no bound at all.
 */
export function addressOwner(address: string): string {
  const plain = address.split('%')[0] as string;
  if (!isIPv6(plain)) return plain;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (mapped) return mapped[1] as string;
  const [head = '', tail] = plain.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}

/** Builds the in-memory {@link LoginSessions}. */
export function createLoginSessions(clock: Clock, limits: StoreLimits = DEFAULT_STORE_LIMITS): LoginSessions {
  const { maxEntries } = limits;
  const sessions = createFairExpiringMap<IdpSession>({ clock, maxEntries, maxPerOwner: limits.maxPerUser, ttlSeconds: SESSION_TTL_SECONDS });
  const logins = createFairExpiringMap<PendingLogin>({ clock, maxEntries, maxPerOwner: limits.maxFormsPerAddress, ttlSeconds: LOGIN_REQUEST_TTL_SECONDS });
  return {
    startSession(session) {
      const id = random();
      return sessions.add(id, session.user.id, session) ? id : undefined;
    },
    session: (id) => (id === undefined ? undefined : sessions.get(id)),
    endSession(id) {
      if (id !== undefined) sessions.delete(id);
    },
    startLogin(request, address = 'unknown') {
      const id = random();
      const csrfToken = random();
      if (!logins.add(id, addressOwner(address), { request, csrfToken })) return { ok: false, retryAfter: logins.secondsUntilRoom() };
      return { ok: true, id, csrfToken };
    },
    takeLogin(id, csrfToken) {
      const pending = id === undefined ? undefined : logins.get(id);
      if (!pending || !sameSecret(pending.csrfToken, csrfToken)) return undefined;
      logins.delete(id as string);
      return pending;
    },
  };
}
