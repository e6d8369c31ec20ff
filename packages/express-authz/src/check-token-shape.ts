import type { Jwt, JwtPayload } from 'jsonwebtoken';
import { InvalidTokenError } from './bearer-errors';

/** What an access token for this API must look like before its signature is checked. */
export interface TokenExpectations {
  issuer: string;
  /** Every audience accepted: `aud` must contain one. */
  audiences: readonly string[];
  clientId: string | undefined;
  realm: string;
  /** Allowed clock skew (s), the same as for `exp` and `nbf`. */
  clockTolerance: number;
  /** Our clock, in seconds since the epoch. */
  nowSeconds: () => number;
}

/** Longest token accepted; real access tokens are about 1 kB. */
export const MAX_TOKEN_LENGTH = 8_192;

/**
 * RFC 7515 §7.1 compact serialization with base64url segments as §2 defines them: the URL-safe
 * alphabet and no padding, whitespace or other characters. Libraries differ in what they
 * tolerate (`==` after a signature, a trailing space), so the core refuses it all first. An
 * empty signature passes here and fails later, with a more useful reason.
 */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * The one `sub` format: the IdP's opaque user id, printable ASCII without spaces, at most 255
 * characters. An e-mail-shaped `sub` is refused: e-mail addresses change hands, user ids do
 * not (OpenID Connect Core §5.7), and the directory names principals by id.
 */
const SUBJECT = /^[\x21-\x3f\x41-\x7e]{1,255}$/;

/** @throws InvalidTokenError when `token` is not a compact JWS of sane length. */
export function checkCompactShape(token: string, realm: string): void {
  if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) {
    throw new InvalidTokenError('the token is not a well-formed JWT', realm);
  }
}

/** Shown when a caller sends the ID token: the commonest mistake, so the message says what to do. */
export const ID_TOKEN_MESSAGE = 'ID tokens are not accepted here; use the access_token';

// RFC 9068 §2.1: `typ` is "at+jwt"; RFC 7515 §4.1.9 lets the "application/" prefix be omitted.
function mediaType(typ: unknown): string | undefined {
  return typeof typ === 'string' ? typ.toLowerCase().replace(/^application\//, '') : undefined;
}

function audiences(payload: JwtPayload): string[] {
  const { aud } = payload;
  if (typeof aud === 'string') return [aud];
  return Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
}

/**
 * Checks the header and claims of a decoded (not yet verified) token and returns its `kid`.
 * These cheap checks run before any key lookup, so a token that would fail anyway can
 * neither trigger a JWKS fetch nor reach signature verification. jsonwebtoken re-checks
 * algorithm, issuer, audience and time after the signature (defence in depth). Only a
 * token that passes here may make the key store refetch the JWKS.
 *
 * @throws InvalidTokenError with a short reason (RFC 6750 §3.1 `invalid_token`).
 */
export function checkTokenShape(token: Jwt | null | undefined, expected: TokenExpectations): string {
  const fail = (reason: string): never => {
    throw new InvalidTokenError(reason, expected.realm);
  };
  if (!token || typeof token.payload !== 'object' || token.payload === null) return fail('the token is not a well-formed JWT');
  const { header, payload } = token;
  const typ = mediaType(header.typ);
  const auds = audiences(payload);
  const forApi = auds.some((aud) => expected.audiences.includes(aud));
  const forClientOnly = expected.clientId !== undefined && auds.includes(expected.clientId) && !forApi;
  // An ID token (OpenID Connect Core §2) proves a login to the client; it is not an API credential.
  if (typ === 'jwt' || forClientOnly) fail(ID_TOKEN_MESSAGE);
  // RFC 8725 §3.1: the algorithm is pinned; `none` and HMAC never reach key lookup.
  if (header.alg !== 'RS256') fail('the token must be signed with RS256');
  // RFC 7515 §4.1.11: we understand no extension, so any `crit` header makes the token invalid.
  if ('crit' in header) fail('the token names critical header extensions (crit) this API does not support');
  // RFC 9068 §4 / RFC 8725 §3.11: explicit typing stops other JWTs posing as access tokens.
  if (typ !== 'at+jwt') fail('the token type (typ) must be at+jwt');
  // The key comes only from the trusted JWKS by kid; embedded jwk/jku/x5u/x5c are ignored.
  if (typeof header.kid !== 'string' || header.kid === '') fail('the token has no key id (kid)');
  if (typeof payload.exp !== 'number') fail('the token has no expiry (exp)');
  // RFC 9068 §2.2 makes iat REQUIRED, and §4 lets a validator refuse a token issued in the
  // future beyond the clock skew: a far-future iat is a forged token or a broken issuer clock.
  if (payload.iat === undefined) fail('the token has no issue time (iat)');
  if (typeof payload.iat !== 'number') fail('the token issue time (iat) is not a number');
  if ((payload.iat as number) > expected.nowSeconds() + expected.clockTolerance) fail('the token was issued in the future (iat)');
  if (typeof payload.sub !== 'string' || payload.sub === '') fail('the token has no subject (sub)');
  if (!SUBJECT.test(payload.sub as string)) fail('the token subject (sub) is not a user id');
  if (payload.iss !== expected.issuer) fail('the token was issued by another issuer');
  if (!forApi) fail('the token is not meant for this API (aud)');
  return header.kid as string;
}
