import type { Request, Response } from 'express';
import { expressjwt, type Params } from 'express-jwt';
import type { JsonWebKey } from 'node:crypto';
import { DEFAULT_REALM, HttpError, InvalidTokenError } from './errors';
import { checkTokenShape, type AccessTokenClaims } from './check-token-shape';
import { createJwksKeyStore } from './jwks-key-store';
import { createVerifiedTokenCache } from './verified-token-cache';

/** Options of `requireAccessToken` and `createAccessTokenVerifier`, checked once, at creation. */
export interface AccessTokenVerifierOptions {
  /** Exact `iss` expected (RFC 9068 §4). */
  issuer: string;
  /** The API's audience: `aud` must contain it (or one of them). */
  audience: string | readonly string[];
  /** The IdP's JWKS URL… */
  jwksUri?: string;
  /** …or the key set itself, for a verifier inside the IdP (its `/userinfo`). */
  jwks?: () => Promise<{ readonly keys: readonly JsonWebKey[] }>;
  /** The OAuth client's id: a token for it (an ID token) gets a pointed message. */
  clientId?: string;
  /** Skew allowed on `exp`, `nbf` and a future `iat`, in seconds (default 5, at most 300). */
  clockTolerance?: number;
  /** Realm of every `WWW-Authenticate` challenge (default `outpost`). */
  realm?: string;
  /** Least time between two JWKS fetches for unknown `kid`s (default 1,000 ms). */
  jwksCooldownMs?: number;
  /** Age after which the key set is refetched, so withdrawn keys stop verifying (default 300,000 ms). */
  jwksMaxAgeMs?: number;
  /** Verified tokens kept until their `exp` (default 10,000; 0: none). */
  tokenCacheSize?: number;
  /** Clock in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Integer options: default, least, most, and the unit their message names. */
const INTEGERS = {
  clockTolerance: [5, 0, 300, ' seconds'],
  jwksCooldownMs: [1_000, 0, 3_600_000, ''],
  jwksMaxAgeMs: [300_000, 1_000, 86_400_000, ''],
  tokenCacheSize: [10_000, 0, 1_000_000, ''],
} as const;

/** Fills defaults and reports every bad option at once, so a misconfigured app fails at start-up. */
function resolveOptions(options: AccessTokenVerifierOptions, label: string) {
  const audiences: string[] = typeof options.audience === 'string' ? [options.audience] : Array.isArray(options.audience) ? [...(options.audience as string[])] : [];
  const { issuer, jwksUri, jwks, clientId, realm = DEFAULT_REALM, now = Date.now } = options;
  const problems: string[] = [];
  if (typeof issuer !== 'string' || issuer === '') problems.push('issuer must be a non-empty string');
  if (audiences.length === 0 || audiences.some((a) => typeof a !== 'string' || a === '')) problems.push('audience must be a non-empty string, or a list of them');
  if ((jwksUri === undefined) === (jwks === undefined)) problems.push('give either jwksUri or jwks');
  else if (jwksUri !== undefined && !/^https?:$/.test(URL.parse(jwksUri)?.protocol ?? '')) problems.push('jwksUri must be an http(s) URL');
  if (clientId !== undefined && (typeof clientId !== 'string' || clientId === '')) problems.push('clientId must be a non-empty string when given');
  if (clientId !== undefined && audiences.includes(clientId)) problems.push('clientId must differ from audience, or ID tokens could pass the audience check');
  const integers = Object.fromEntries(
    Object.entries(INTEGERS).map(([name, [fallback, least, most, unit]]) => {
      const value = options[name as keyof typeof INTEGERS] ?? fallback;
      if (!Number.isInteger(value) || value < least || value > most) problems.push(`${name} must be an integer from ${least} to ${most}${unit}`);
      return [name, value];
    }),
  ) as Record<keyof typeof INTEGERS, number>;
  if (typeof realm !== 'string' || !/^[\x20-\x7e]+$/.test(realm)) problems.push('realm must be printable ASCII');
  if (problems.length > 0) throw new TypeError(`${label}: ${problems.join('; ')}`);
  return { ...integers, issuer, audiences, source: jwksUri ?? jwks!, clientId, realm, now };
}

/**
 * RFC 7515 §7.1 compact serialization, base64url as §2 defines it: no padding, whitespace or
 * other characters (libraries differ in what they tolerate), at most 8 KB (real ones are ~1 KB).
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** jsonwebtoken's errors by class name, never by message text (RFC 7519 §4.1.4 exp, §4.1.5 nbf). */
const JWT_FAILURES = new Map([
  ['TokenExpiredError', 'the token has expired'],
  ['NotBeforeError', 'the token is not valid yet'],
]);

/**
 * The one token path, for `requireAccessToken` (the request it came with) and for raw tokens
 * (the edge's JWT identities, the console, `/userinfo`: a bare request carrying the token), so
 * none can disagree about a token: the verified-token cache, the strict compact form, then
 * express-jwt with the profile check before the key lookup as its `secret` hook.
 */
export function createTokenVerifier(options: AccessTokenVerifierOptions, label: string) {
  const opts = resolveOptions(options, label);
  const { realm, now, clockTolerance } = opts;
  const nowSeconds = () => Math.floor(now() / 1000);
  const keyOf = createJwksKeyStore({ source: opts.source, cooldownMs: opts.jwksCooldownMs, maxAgeMs: opts.jwksMaxAgeMs, realm, now });
  const cache = createVerifiedTokenCache(opts.tokenCacheSize, clockTolerance);
  const tokens = new WeakMap<Request, string>();
  const params: Params = {
    // jsonwebtoken's checks after the signature: RS256 pinned, iss, aud, exp/nbf with our tolerance.
    algorithms: ['RS256'],
    issuer: opts.issuer,
    audience: opts.audiences as [string, ...string[]],
    clockTolerance,
    secret: (_req, decoded) => keyOf(checkTokenShape(decoded, opts, nowSeconds)),
    getToken: (req) => tokens.get(req),
  };
  // jsonwebtoken reads `clockTimestamp` once per verify: a getter makes it read our clock.
  Object.defineProperty(params, 'clockTimestamp', { enumerable: true, get: nowSeconds });
  const verifyJwt = expressjwt(params);

  /** express-jwt's refusal (jsonwebtoken's error as `inner`) as 401; ours pass; anything else is a bug (500), never an allow. */
  function refusal(err: unknown): unknown {
    const { name, inner } = (err ?? {}) as { name?: unknown; inner?: { name?: unknown } };
    if (err instanceof HttpError || name !== 'UnauthorizedError') return err;
    return new InvalidTokenError(JWT_FAILURES.get(String(inner?.name)) ?? 'the token signature or claims are invalid', realm);
  }

  async function verify(token: string, req = { method: 'GET', headers: {} } as Request): Promise<AccessTokenClaims> {
    const cached = cache.get(token, nowSeconds());
    if (cached) return cached;
    if (token.length > 8_192 || !COMPACT_JWS.test(token)) throw new InvalidTokenError('the token is not a well-formed JWT', realm);
    delete req.auth; // only express-jwt may set it from here on
    tokens.set(req, token);
    const failure = await new Promise<unknown>((resolve) => void verifyJwt(req, {} as Response, resolve));
    if (failure !== undefined) throw refusal(failure);
    // express-jwt lets CORS preflights through unverified: without claims, fail closed.
    if (req.auth === undefined) throw new InvalidTokenError('the token could not be verified', realm);
    // Deep-copied and frozen: every request with the same token shares them.
    const claims = JSON.parse(JSON.stringify(req.auth), (_name, value: unknown) => (typeof value === 'object' && value !== null ? Object.freeze(value) : value)) as AccessTokenClaims;
    cache.set(token, claims);
    return claims;
  }

  return { realm, nowSeconds, cache, verify };
}

/**
 * The checks of `requireAccessToken` on a raw token. `verify` throws InvalidTokenError, or
 * TemporarilyUnavailableError when the keys cannot be fetched; creation throws TypeError for a bad option.
 */
export function createAccessTokenVerifier(options: AccessTokenVerifierOptions, label = 'createAccessTokenVerifier'): { verify(token: string): Promise<AccessTokenClaims> } {
  const { verify } = createTokenVerifier(options, label);
  return { verify: (token) => verify(token) };
}
