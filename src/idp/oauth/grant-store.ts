import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock';
import type { IdpUser } from '../user-store';
import { createExpiringMap } from './expiring-map';
import { CODE_TTL_SECONDS, MAX_ENTRIES, REFRESH_TTL_SECONDS } from './oauth-paths';

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
 */
export interface GrantStore {
  /** A fresh one-time code for `record`, valid {@link CODE_TTL_SECONDS}. */
  issueCode(record: CodeRecord): string;
  /** Redeems a code once; a second redemption is `replayed` and revokes what the first issued. */
  redeemCode(code: string): Redeemed<CodeRecord>;
  /** Ties the refresh-token family issued for a code to it, so a replay can revoke it. */
  linkCode(code: string, family: string): void;
  /** Starts a refresh-token family for a grant; returns its first token and the family id. */
  startFamily(grant: Grant): { token: string; family: string };
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
  revoked: boolean;
}
interface RefreshEntry {
  readonly family: string;
  used: boolean;
}

const secret = (): string => randomBytes(32).toString('base64url');

/** Builds the in-memory {@link GrantStore}. */
export function createGrantStore(clock: Clock): GrantStore {
  const codes = createExpiringMap<CodeEntry>(clock, MAX_ENTRIES);
  const families = createExpiringMap<Family>(clock, MAX_ENTRIES);
  const tokens = createExpiringMap<RefreshEntry>(clock, MAX_ENTRIES);

  function revokeFamily(id: string | undefined): void {
    const family = id === undefined ? undefined : families.get(id);
    if (family) family.revoked = true;
  }

  function mint(family: string): string {
    const token = secret();
    tokens.set(token, { family, used: false }, REFRESH_TTL_SECONDS);
    return token;
  }

  return {
    issueCode(record) {
      const code = secret();
      codes.set(code, { record, used: false }, CODE_TTL_SECONDS);
      return code;
    },
    redeemCode(code) {
      const entry = codes.get(code);
      if (!entry) return { ok: false, replayed: false };
      if (entry.used) {
        // RFC 6749 §4.1.2: a code used twice is refused and what it issued is revoked.
        revokeFamily(entry.family);
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
      const family = secret();
      families.set(family, { grant, revoked: false }, REFRESH_TTL_SECONDS);
      return { token: mint(family), family };
    },
    rotate(token, clientId) {
      const entry = tokens.get(token);
      const family = entry && families.get(entry.family);
      // A token presented by another client is refused without spending it (RFC 6749 §6).
      if (!entry || !family || family.revoked || family.grant.clientId !== clientId) return { ok: false, replayed: false };
      if (entry.used) {
        revokeFamily(entry.family);
        return { ok: false, replayed: true };
      }
      entry.used = true;
      return { ok: true, record: family.grant, next: mint(entry.family) };
    },
    revoke(token, clientId) {
      const entry = tokens.get(token);
      const family = entry && families.get(entry.family);
      // RFC 7009 §2.1: only the client the token was issued to may revoke it.
      if (entry && family && family.grant.clientId === clientId) family.revoked = true;
    },
  };
}
