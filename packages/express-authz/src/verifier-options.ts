import type { JsonWebKey } from 'node:crypto';
import { DEFAULT_REALM } from './bearer-errors';

/** Options of the access-token verifier; checked once, when it is created. */
export interface AccessTokenVerifierOptions {
  /** Exact `iss` expected (RFC 9068 §4). */
  issuer: string;
  /** The API's audience; `aud` must contain it (or one of them, given several). */
  audience: string | readonly string[];
  /** The IdP's JWKS URL, the source of verification keys. */
  jwksUri?: string;
  /**
   * Instead of `jwksUri`, the key set itself (`{ keys: [...] }`, RFC 7517), for a verifier inside
   * the IdP that holds it (its `/userinfo`); fetched and cached as a JWKS would be.
   */
  jwks?: () => Promise<{ readonly keys: readonly JsonWebKey[] }>;
  /** The OAuth client id: a token whose `aud` is this (an ID token) gets a pointed message. */
  clientId?: string;
  /** Allowed clock skew for `exp`/`nbf`, in seconds (default 5, at most 300). */
  clockTolerance?: number;
  /** Realm named in every `WWW-Authenticate` challenge (default `outpost`). */
  realm?: string;
  /**
   * Minimum time between two JWKS fetches caused by unknown `kid`s (default 1 000 ms). A token
   * with an unknown kid that arrives inside it waits for the next fetch instead of failing.
   */
  jwksCooldownMs?: number;
  /** Age after which the key set is refetched, so withdrawn keys stop verifying (default 300 000 ms). */
  jwksMaxAgeMs?: number;
  /** Time-out of one JWKS request (default 5 000 ms). */
  jwksTimeoutMs?: number;
  /** Verified tokens kept in memory until their `exp` (default 10 000; 0 disables). */
  tokenCacheSize?: number;
  /** Clock in milliseconds since the epoch (default `Date.now`); tests inject their own. */
  now?: () => number;
}

/** The options with every default filled in. */
export type ResolvedAccessTokenOptions = Readonly<Required<Omit<AccessTokenVerifierOptions, 'clientId' | 'audience' | 'jwksUri' | 'jwks'>>> & {
  readonly clientId: string | undefined;
  /** Every audience accepted. */
  readonly audiences: readonly string[];
  readonly jwksUri: string | undefined;
  readonly jwks: AccessTokenVerifierOptions['jwks'];
};

const PRINTABLE = /^[\x20-\x7e]+$/;

function isIntIn(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/**
 * Fills defaults and reports every bad option at once, so a misconfigured app fails at
 * start-up instead of on its first request. `label` names the caller in the error.
 */
export function resolveAccessTokenOptions(options: AccessTokenVerifierOptions, label: string): ResolvedAccessTokenOptions {
  const audiences: readonly string[] = typeof options.audience === 'string' ? [options.audience] : Array.isArray(options.audience) ? [...(options.audience as string[])] : [];
  const resolved = {
    issuer: options.issuer,
    audiences,
    jwksUri: options.jwksUri,
    jwks: options.jwks,
    clientId: options.clientId,
    clockTolerance: options.clockTolerance ?? 5,
    realm: options.realm ?? DEFAULT_REALM,
    jwksCooldownMs: options.jwksCooldownMs ?? 1_000,
    jwksMaxAgeMs: options.jwksMaxAgeMs ?? 300_000,
    jwksTimeoutMs: options.jwksTimeoutMs ?? 5_000,
    tokenCacheSize: options.tokenCacheSize ?? 10_000,
    now: options.now ?? Date.now,
  };
  const problems: string[] = [];
  if (typeof resolved.issuer !== 'string' || resolved.issuer === '') problems.push('issuer must be a non-empty string');
  if (audiences.length === 0 || audiences.some((a) => typeof a !== 'string' || a === '')) problems.push('audience must be a non-empty string, or a list of them');
  if ((resolved.jwksUri === undefined) === (resolved.jwks === undefined)) problems.push('give either jwksUri or jwks');
  else if (resolved.jwksUri !== undefined && !isHttpUrl(resolved.jwksUri)) problems.push('jwksUri must be an http(s) URL');
  else if (resolved.jwks !== undefined && typeof resolved.jwks !== 'function') problems.push('jwks must be a function returning the key set');
  if (resolved.clientId !== undefined && (typeof resolved.clientId !== 'string' || resolved.clientId === '')) {
    problems.push('clientId must be a non-empty string when given');
  }
  if (resolved.clientId !== undefined && audiences.includes(resolved.clientId)) {
    problems.push('clientId must differ from audience, or ID tokens could pass the audience check');
  }
  if (!isIntIn(resolved.clockTolerance, 0, 300)) problems.push('clockTolerance must be an integer from 0 to 300 seconds');
  if (typeof resolved.realm !== 'string' || !PRINTABLE.test(resolved.realm)) problems.push('realm must be printable ASCII');
  if (!isIntIn(resolved.jwksCooldownMs, 0, 3_600_000)) problems.push('jwksCooldownMs must be an integer from 0 to 3600000');
  if (!isIntIn(resolved.jwksMaxAgeMs, 1_000, 86_400_000)) problems.push('jwksMaxAgeMs must be an integer from 1000 to 86400000');
  if (!isIntIn(resolved.jwksTimeoutMs, 1, 60_000)) problems.push('jwksTimeoutMs must be an integer from 1 to 60000');
  if (!isIntIn(resolved.tokenCacheSize, 0, 1_000_000)) problems.push('tokenCacheSize must be an integer from 0 to 1000000');
  if (typeof resolved.now !== 'function') problems.push('now must be a function');
  if (problems.length > 0) throw new TypeError(`${label}: ${problems.join('; ')}`);
  return Object.freeze(resolved);
}
