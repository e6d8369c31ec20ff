import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock';
import type { IdpUser } from '../user-store';
import { createFairExpiringMap } from './fair-expiring-map';
import { CODE_TTL_SECONDS, REFRESH_TTL_SECONDS } from './oauth-paths';
import { DEFAULT_STORE_LIMITS, type StoreLimits } from './store-limits';

/** What a user granted a client at /authorize; a code and a refresh-token family carry it. */
export interface Grant {
  readonly clientId: string;
  readonly user: IdpUser;
  readonly scope: string;
  /** Seconds since the epoch when the user entered their password. */
  readonly authTime: number;
}

/** An authorization code's binding (RFC 6749 §4.1.3, RFC 7636 §4.6). */
export interface CodeRecord extends Grant {
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly nonce?: string;
}

/** The result of redeeming a code or a refresh token. */
export type Redeemed<T> = { readonly ok: true; readonly record: T } | { readonly ok: false; readonly replayed: boolean };

/**
 * Authorization codes and refresh tokens, in memory. On purpose not on disk: a restart
 * signs browsers out (they sign in again with one click while the IdP session lasts, or
 * with the password), and no bearer secret that outlives the process sits in the data
 * directory. Access tokens are JWTs and stay valid until they expire either way.
 *
 * Both tables are bounded per user and client ({@link StoreLimits.maxPerUser}: more replace
 * that pair's oldest) and shed their largest holder when full, so one user's sign-ins and
 * rotations never push out another user's live code or refresh token. A refresh token names
 * its family, and the family keeps only its current token's hash: rotating adds nothing, and
 * any other token of a live family is a spent one, so reuse is detected however long ago
 * it was spent, in constant memory per family.
 */
export interface GrantStore {
  /** A fresh one-time code for `record`, valid {@link CODE_TTL_SECONDS}; undefined when the table is full. */
  issueCode(record: CodeRecord): string | undefined;
  /** Redeems a code once; a second redemption is `replayed` and revokes what the first issued. */
  redeemCode(code: string): Redeemed<CodeRecord>;
  /** Ties the refresh-token family issued for a code to it, so a replay can revoke it. */
  linkCode(code: string, family: string): void;
  /** Starts a refresh-token family for a grant; undefined when the table is full (no refresh token then). */
  startFamily(grant: Grant): { token: string; family: string } | undefined;
  /** Rotates a refresh token (RFC 9700 §4.14.2): the old one is spent; reuse revokes the family. */
  rotate(token: string, clientId: string): Redeemed<Grant> & { readonly next?: string };
  /** Revokes the family a refresh token belongs to (RFC 7009 §2.1); unknown tokens are ignored. */
  revoke(token: string, clientId: string): void;
}

interface CodeEntry {
  readonly record: CodeRecord;
  used: boolean;
  family?: string;
}
interface Family {
  readonly grant: Grant;
  /** SHA-256 of the current token's secret; every earlier one is spent. */
  current: Buffer;
}

const secret = (): string => randomBytes(32).toString('base64url');
const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
/** Whose bound a grant counts against: the user at one client. */
const ownerOf = (grant: Grant): string => JSON.stringify([grant.clientId, grant.user.id]);

/** A refresh token is `<family>.<secret>`; both halves are 256-bit random values. */
function parseRefreshToken(token: string): { family: string; secret: string } | undefined {
  const dot = token.indexOf('.');
  return dot < 1 ? undefined : { family: token.slice(0, dot), secret: token.slice(dot + 1) };
}

/** Builds the in-memory {@link GrantStore}. */
export function createGrantStore(clock: Clock, limits: StoreLimits = DEFAULT_STORE_LIMITS): GrantStore {
  const bounds = { clock, maxEntries: limits.maxEntries, maxPerOwner: limits.maxPerUser };
  const codes = createFairExpiringMap<CodeEntry>({ ...bounds, ttlSeconds: CODE_TTL_SECONDS });
  const families = createFairExpiringMap<Family>({ ...bounds, ttlSeconds: REFRESH_TTL_SECONDS });

  function mint(id: string, family: Family): string {
    const next = secret();
    family.current = digest(next);
    return `${id}.${next}`;
  }

  /** The live family `token` names, when it was issued to `clientId`. */
  function familyOf(token: string, clientId: string): { id: string; secret: string; family: Family } | undefined {
    const parsed = parseRefreshToken(token);
    const family = parsed && families.get(parsed.family);
    // A token presented by another client is refused without spending it (RFC 6749 §6).
    return parsed && family && family.grant.clientId === clientId ? { id: parsed.family, secret: parsed.secret, family } : undefined;
  }

  return {
    issueCode(record) {
      const code = secret();
      return codes.add(code, ownerOf(record), { record, used: false }) ? code : undefined;
    },
    redeemCode(code) {
      const entry = codes.get(code);
      if (!entry) return { ok: false, replayed: false };
      if (entry.used) {
        // RFC 6749 §4.1.2: a code used twice is refused and what it issued is revoked.
        if (entry.family !== undefined) families.delete(entry.family);
        return { ok: false, replayed: true };
      }
      entry.used = true;
      return { ok: true, record: entry.record };
    },
    linkCode(code, family) {
      const entry = codes.get(code);
      if (entry) entry.family = family;
    },
    startFamily(grant) {
      const id = secret();
      const first = secret();
      return families.add(id, ownerOf(grant), { grant, current: digest(first) }) ? { token: `${id}.${first}`, family: id } : undefined;
    },
    rotate(token, clientId) {
      const found = familyOf(token, clientId);
      if (!found) return { ok: false, replayed: false };
      // Only the family's holders ever saw its id, so any secret but the current one is a
      // spent token come back: it leaked, and the whole family goes (RFC 9700 §4.14.2).
      if (!timingSafeEqual(digest(found.secret), found.family.current)) {
        families.delete(found.id);
        return { ok: false, replayed: true };
      }
      return { ok: true, record: found.family.grant, next: mint(found.id, found.family) };
    },
    revoke(token, clientId) {
      // RFC 7009 §2.1: only the client the token was issued to may revoke it.
      const found = familyOf(token, clientId);
      if (found) families.delete(found.id);
    },
  };
}
