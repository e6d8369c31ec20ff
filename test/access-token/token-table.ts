/**
 * One table of access tokens, good and hostile, that every verifier of Outpost must answer
 * the same way (the apps' middleware and the edge's JWT identity). Tokens are signed with the
 * real IdP's own key, so only the property a row names is wrong.
 */
import { randomUUID, type KeyObject } from 'node:crypto';
import { createSigningKey, signHs256WithPublicKey, signRs256, signingInput, stripSignature, tamperPayload, unsignedToken, type Claims, type JoseHeader } from '../helpers/tokens';

/** What the rows are built from: the IdP's signing key and real tokens from its token endpoint. */
export interface TokenTableContext {
  issuer: string;
  audience: string;
  clientId: string;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** A directory user id, the `sub` of a good token. */
  sub: string;
  /** An access token and an ID token issued by the real IdP. */
  accessToken: string;
  idToken: string;
}

/** One row: a token and whether it must be accepted. */
export interface TokenRow {
  name: string;
  accept: boolean;
  token(ctx: TokenTableContext): string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const foreignKey = createSigningKey();

function sign(ctx: TokenTableContext, claims: Claims = {}, header: JoseHeader = {}): string {
  const iat = nowSeconds();
  const defaults = { iss: ctx.issuer, aud: ctx.audience, sub: ctx.sub, client_id: ctx.clientId, iat, exp: iat + 300, jti: randomUUID() };
  return signRs256({ typ: 'at+jwt', kid: ctx.kid, ...header }, { ...defaults, ...claims }, ctx.privateKey);
}

const b64 = (value: string) => Buffer.from(value).toString('base64url');

/** The shared table. */
export const TOKEN_TABLE: readonly TokenRow[] = [
  { name: 'an access token from the IdP', accept: true, token: (c) => c.accessToken },
  { name: 'a hand-signed access token', accept: true, token: (c) => sign(c) },
  { name: 'typ application/at+jwt', accept: true, token: (c) => sign(c, {}, { typ: 'application/at+jwt' }) },
  { name: 'aud as an array holding the API', accept: true, token: (c) => sign(c, { aud: ['other-api', c.audience] }) },
  { name: 'exp just inside the clock tolerance', accept: true, token: (c) => sign(c, { exp: nowSeconds() - 1 }) },
  { name: 'the ID token', accept: false, token: (c) => c.idToken },
  { name: 'a crit header', accept: false, token: (c) => sign(c, {}, { crit: ['exp'], exp: 1 }) },
  { name: 'a crit header naming nothing', accept: false, token: (c) => sign(c, {}, { crit: [] }) },
  { name: 'a signature padded with ==', accept: false, token: (c) => `${sign(c)}==` },
  { name: 'a standard-base64 signature (+/)', accept: false, token: (c) => `${sign(c).slice(0, -1)}+` },
  { name: 'sub as an e-mail address', accept: false, token: (c) => sign(c, { sub: 'rick@the-citadel.com' }) },
  { name: 'sub with a space', accept: false, token: (c) => sign(c, { sub: 'rick sanchez' }) },
  { name: 'sub not a string', accept: false, token: (c) => sign(c, { sub: 42 }) },
  { name: 'no sub', accept: false, token: (c) => sign(c, { sub: undefined }) },
  { name: 'alg none', accept: false, token: (c) => unsignedToken({ typ: 'at+jwt', kid: c.kid }, { iss: c.issuer, aud: c.audience, sub: c.sub, exp: nowSeconds() + 300 }) },
  { name: 'HS256 keyed with the public key', accept: false, token: (c) => signHs256WithPublicKey({ typ: 'at+jwt', kid: c.kid }, { iss: c.issuer, aud: c.audience, sub: c.sub, exp: nowSeconds() + 300 }, c.publicKey) },
  { name: 'typ JWT', accept: false, token: (c) => sign(c, {}, { typ: 'JWT' }) },
  { name: 'no typ', accept: false, token: (c) => sign(c, {}, { typ: undefined }) },
  { name: 'expired', accept: false, token: (c) => sign(c, { iat: nowSeconds() - 600, exp: nowSeconds() - 60 }) },
  { name: 'no exp', accept: false, token: (c) => sign(c, { exp: undefined }) },
  { name: 'nbf in the future', accept: false, token: (c) => sign(c, { nbf: nowSeconds() + 120 }) },
  { name: 'iat an hour in the future', accept: false, token: (c) => sign(c, { iat: nowSeconds() + 3600, exp: nowSeconds() + 7200 }) },
  { name: 'iat years in the future', accept: false, token: (c) => sign(c, { iat: nowSeconds() + 10 * 365 * 86400, exp: nowSeconds() + 11 * 365 * 86400 }) },
  { name: 'iat not a number', accept: false, token: (c) => sign(c, { iat: 'now' }) },
  { name: 'no iat (RFC 9068 §2.2: required)', accept: false, token: (c) => sign(c, { iat: undefined }) },
  { name: 'iat just inside the clock tolerance', accept: true, token: (c) => sign(c, { iat: nowSeconds() + 3 }) },
  { name: 'another issuer', accept: false, token: (c) => sign(c, { iss: 'https://evil.example' }) },
  { name: 'an issuer with a trailing slash', accept: false, token: (c) => sign(c, { iss: `${c.issuer}/` }) },
  { name: 'another audience', accept: false, token: (c) => sign(c, { aud: 'urn:someone-else' }) },
  { name: 'aud = the client id', accept: false, token: (c) => sign(c, { aud: c.clientId }) },
  { name: 'no kid', accept: false, token: (c) => sign(c, {}, { kid: undefined }) },
  { name: 'an unknown kid', accept: false, token: (c) => sign(c, {}, { kid: 'no-such-key' }) },
  { name: 'a foreign key under a known kid', accept: false, token: (c) => signRs256({ typ: 'at+jwt', kid: c.kid }, { iss: c.issuer, aud: c.audience, sub: c.sub, exp: nowSeconds() + 300 }, foreignKey.privateKey) },
  { name: 'a tampered payload', accept: false, token: (c) => tamperPayload(c.accessToken, { iss: c.issuer, aud: c.audience, sub: 'someone-else', exp: nowSeconds() + 300 }) },
  { name: 'a stripped signature', accept: false, token: (c) => stripSignature(c.accessToken) },
  { name: 'a space inside', accept: false, token: (c) => c.accessToken.replace('.', '. ') },
  { name: 'four segments', accept: false, token: (c) => `${c.accessToken}.${b64('x')}` },
  { name: 'an oversized token (10 kB claim)', accept: false, token: (c) => sign(c, { pad: 'x'.repeat(10_000) }) },
  { name: 'a header that is not JSON', accept: false, token: (c) => `${b64('{"alg":"RS256",')}.${sign(c).split('.').slice(1).join('.')}` },
  { name: 'a header that is a JSON array', accept: false, token: (c) => `${b64('["RS256"]')}.${sign(c).split('.').slice(1).join('.')}` },
  { name: 'a payload that is not JSON', accept: false, token: (c) => `${signingInput({ alg: 'RS256', typ: 'at+jwt', kid: c.kid }, {}).split('.')[0]}.${b64('not json')}.${b64('sig')}` },
  { name: 'not a JWT at all', accept: false, token: () => 'garbage' },
];
