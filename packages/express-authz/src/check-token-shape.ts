// The RFC 9068 access-token profile: what an access token holds, and the checks it passes before any key lookup.
import type { Jwt } from 'jsonwebtoken';
import { InvalidTokenError } from './errors';

/** The verified claims of an access token (RFC 9068 §2.2), on `req.auth` behind `requireAccessToken()`. */
export interface AccessTokenClaims {
  /** The user's stable id: the authorization principal. */
  sub: string;
  iss: string;
  aud: string | string[];
  client_id?: string;
  scope?: string;
  exp: number;
  iat?: number;
  nbf?: number;
  jti?: string;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      auth?: AccessTokenClaims;
    }
  }
}

/** Shown when a caller sends the ID token: the commonest mistake, so the message says what to do. */
export const ID_TOKEN_MESSAGE = 'ID tokens are not accepted here; use the access_token';

/** What a token for this API must look like: the verifier's options. */
export interface TokenExpectations {
  readonly issuer: string;
  /** `aud` must hold one of them. */
  readonly audiences: readonly string[];
  readonly clientId: string | undefined;
  readonly clockTolerance: number;
  readonly realm: string;
}

/** The IdP's opaque user id: printable ASCII, no space and no `@` — e-mail addresses change hands (OIDC Core §5.7). */
const SUBJECT = /^[\x21-\x3f\x41-\x7e]{1,255}$/;

/**
 * Checks the header and claims of a decoded, not yet verified token and returns its `kid`. These
 * cheap checks run before any key lookup, so a token that would fail anyway can neither trigger
 * a JWKS fetch nor reach signature verification; jsonwebtoken re-checks algorithm, issuer,
 * audience and times after the signature.
 *
 * @throws InvalidTokenError with a short reason (RFC 6750 §3.1 `invalid_token`).
 */
export function checkTokenShape(token: Jwt | null | undefined, expected: TokenExpectations, nowSeconds: () => number): string {
  const fail = (reason: string): never => {
    throw new InvalidTokenError(reason, expected.realm);
  };
  if (!token || typeof token.payload !== 'object' || token.payload === null) return fail('the token is not a well-formed JWT');
  const { header, payload } = token;
  // RFC 9068 §2.1: `typ` is "at+jwt"; RFC 7515 §4.1.9 lets the "application/" prefix be omitted.
  const typ = typeof header.typ === 'string' ? header.typ.toLowerCase().replace(/^application\//, '') : undefined;
  const auds = [payload.aud].flat().filter((aud): aud is string => typeof aud === 'string');
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
  // RFC 9068 §2.2 requires iat; a far-future one (§4) is a forged token or a broken issuer clock.
  if (payload.iat === undefined) fail('the token has no issue time (iat)');
  if (typeof payload.iat !== 'number') fail('the token issue time (iat) is not a number');
  if ((payload.iat as number) > nowSeconds() + expected.clockTolerance) fail('the token was issued in the future (iat)');
  if (typeof payload.sub !== 'string' || payload.sub === '') fail('the token has no subject (sub)');
  if (!SUBJECT.test(payload.sub as string)) fail('the token subject (sub) is not a user id');
  if (payload.iss !== expected.issuer) fail('the token was issued by another issuer');
  if (!forApi) fail('the token is not meant for this API (aud)');
  return header.kid as string;
}
