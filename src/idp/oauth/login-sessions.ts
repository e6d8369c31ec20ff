import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock';
import type { IdpUser } from '../user-store';
import { createExpiringMap } from './expiring-map';
import type { AuthorizeRequest } from './read-authorize-request';
import { LOGIN_REQUEST_TTL_SECONDS, MAX_ENTRIES, SESSION_TTL_SECONDS } from './oauth-paths';

/** Cookie naming the browser's IdP session. */
export const SESSION_COOKIE = 'outpost_session';
/** Cookie naming the login page the browser was shown (binds its CSRF token). */
export const LOGIN_COOKIE = 'outpost_login';

/** Open login forms one client address may hold (a person with several tabs stays well below). */
export const MAX_PENDING_LOGINS_PER_ADDRESS = 20;

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

/** Sessions and pending logins, in memory and short-lived; a restart asks for the password again. */
export interface LoginSessions {
  startSession(session: IdpSession): string;
  session(id: string | undefined): IdpSession | undefined;
  endSession(id: string | undefined): void;
  /**
   * Opens a login form for `request`. At most {@link MAX_PENDING_LOGINS_PER_ADDRESS} forms are
   * open per client address: more evict that address's oldest, so a flood of `/authorize`
   * from one source cannot push other people's open forms out of the shared table.
   */
  startLogin(request: AuthorizeRequest, address?: string): { id: string; csrfToken: string };
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

/** Builds the in-memory {@link LoginSessions}. */
export function createLoginSessions(clock: Clock): LoginSessions {
  const sessions = createExpiringMap<IdpSession>(clock, MAX_ENTRIES);
  const logins = createExpiringMap<PendingLogin>(clock, MAX_ENTRIES);
  // Ids of the open forms per address, oldest first; bounded by the addresses of open forms.
  const loginsByAddress = createExpiringMap<string[]>(clock, MAX_ENTRIES);
  return {
    startSession(session) {
      const id = random();
      sessions.set(id, session, SESSION_TTL_SECONDS);
      return id;
    },
    session: (id) => (id === undefined ? undefined : sessions.get(id)),
    endSession(id) {
      if (id !== undefined) sessions.delete(id);
    },
    startLogin(request, address = 'unknown') {
      const id = random();
      const csrfToken = random();
      const open = (loginsByAddress.get(address) ?? []).filter((other) => logins.get(other) !== undefined);
      while (open.length >= MAX_PENDING_LOGINS_PER_ADDRESS) logins.delete(open.shift()!);
      open.push(id);
      loginsByAddress.set(address, open, LOGIN_REQUEST_TTL_SECONDS);
      logins.set(id, { request, csrfToken }, LOGIN_REQUEST_TTL_SECONDS);
      return { id, csrfToken };
    },
    takeLogin(id, csrfToken) {
      const pending = id === undefined ? undefined : logins.get(id);
      if (!pending || !sameSecret(pending.csrfToken, csrfToken)) return undefined;
      logins.delete(id as string);
      return pending;
    },
  };
}
