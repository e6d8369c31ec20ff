/**
 * Test helpers that mint real JWTs from freshly generated keys and serve them from a real
 * JWKS endpoint on 127.0.0.1 (port 0). Tokens are encoded by hand with node:crypto so tests
 * can also build the malicious ones no library would sign: `alg: none`, HS256 keyed with
 * the public key, stripped signatures, tampered payloads, embedded `jwk`/`jku` headers.
 */
import { createHmac, generateKeyPairSync, randomUUID, sign as rsaSign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { baseUrl, close } from '../../src/http';

/** A JOSE header; `alg`/`typ`/`kid` default to RS256, at+jwt and the issuer's kid. */
export type JoseHeader = Record<string, unknown>;
/** JWT claims; `undefined` values are dropped, so a test can remove a default claim. */
export type Claims = Record<string, unknown>;

/** An RSA key pair with a kid, as an IdP would hold it. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

const b64url = (data: string | Buffer) => Buffer.from(data).toString('base64url');
const dropUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

/** A fresh 2048-bit RSA key pair. */
export function createSigningKey(kid: string = randomUUID()): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey };
}

/** The public JWK of a key, as published in a JWKS (RFC 7517 §4). */
export function publicJwk(key: SigningKey): Record<string, unknown> {
  return { ...key.publicKey.export({ format: 'jwk' }), kid: key.kid, alg: 'RS256', use: 'sig' };
}

/** `base64url(header).base64url(payload)`, the JWS signing input (RFC 7515 §5.1). */
export function signingInput(header: JoseHeader, claims: Claims): string {
  return `${b64url(JSON.stringify(dropUndefined(header)))}.${b64url(JSON.stringify(dropUndefined(claims)))}`;
}

/** Signs with RS256 using any private key (a foreign key included). */
export function signRs256(header: JoseHeader, claims: Claims, privateKey: KeyObject): string {
  const input = signingInput({ alg: 'RS256', ...header }, claims);
  return `${input}.${b64url(rsaSign('sha256', Buffer.from(input), privateKey))}`;
}

/** The key-confusion attack: HS256 with the issuer's *public* key PEM as the HMAC secret. */
export function signHs256WithPublicKey(header: JoseHeader, claims: Claims, publicKey: KeyObject): string {
  const input = signingInput({ ...header, alg: 'HS256' }, claims);
  const secret = publicKey.export({ format: 'pem', type: 'spki' });
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** An unsecured JWT (RFC 7519 §6): `alg: none` and an empty signature. */
export function unsignedToken(header: JoseHeader, claims: Claims): string {
  return `${signingInput({ ...header, alg: 'none' }, claims)}.`;
}

/** Removes the signature, keeping the trailing dot. */
export function stripSignature(token: string): string {
  return token.slice(0, token.lastIndexOf('.') + 1);
}

/** Replaces the payload while keeping the original header and signature. */
export function tamperPayload(token: string, claims: Claims): string {
  const [header, , signature] = token.split('.');
  return `${header}.${b64url(JSON.stringify(claims))}.${signature}`;
}

/** A JWKS endpoint plus the keys and defaults to mint tokens it vouches for. */
export interface TestIssuer {
  issuer: string;
  audience: string;
  clientId: string;
  jwksUri: string;
  /** The kid of the current signing key. */
  kid: string;
  key: SigningKey;
  /** How many times the JWKS has been fetched. */
  readonly jwksRequests: number;
  /** Mints an access token: defaults `iss`, `aud`, `sub`, `iat`, `exp` (+1 h), typ at+jwt. */
  sign(claims?: Claims, header?: JoseHeader, options?: { key?: SigningKey; nowSeconds?: number }): string;
  /** The seconds-since-epoch clock the default `iat`/`exp` are based on. */
  nowSeconds(): number;
  /** Makes the JWKS answer with this HTTP status (e.g. 503) instead of the keys. */
  failWith(status: number | undefined): void;
  /** Publishes another key alongside the current one. */
  addKey(key: SigningKey): void;
  close(): Promise<void>;
}

/** Starts a JWKS server on 127.0.0.1:0 serving one fresh key. Always `close()` it. */
export async function createTestIssuer(
  opts: { issuer?: string; audience?: string; clientId?: string; nowSeconds?: () => number; key?: SigningKey } = {},
): Promise<TestIssuer> {
  // Key generation dominates test time; a test that needs no new key may pass one in.
  const key = opts.key ?? createSigningKey();
  const published: SigningKey[] = [key];
  let jwksRequests = 0;
  let failStatus: number | undefined;
  const server: Server = createServer((req, res) => {
    jwksRequests += 1;
    if (req.url !== '/.well-known/jwks.json') return void res.writeHead(404).end();
    if (failStatus !== undefined) return void res.writeHead(failStatus).end('{"error":"down"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map(publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = baseUrl(server);
  const issuer = opts.issuer ?? url;
  const audience = opts.audience ?? 'urn:outpost:test-api';
  const clientId = opts.clientId ?? 'outpost-test-client';
  const nowSeconds = opts.nowSeconds ?? (() => Math.floor(Date.now() / 1000));

  return {
    issuer,
    audience,
    clientId,
    jwksUri: `${url}/.well-known/jwks.json`,
    kid: key.kid,
    key,
    get jwksRequests() {
      return jwksRequests;
    },
    nowSeconds,
    sign(claims = {}, header = {}, options = {}) {
      const signer = options.key ?? key;
      const iat = options.nowSeconds ?? nowSeconds();
      const defaults = { iss: issuer, aud: audience, sub: 'user-1', client_id: clientId, iat, exp: iat + 3600, jti: randomUUID() };
      return signRs256({ typ: 'at+jwt', kid: signer.kid, ...header }, { ...defaults, ...claims }, signer.privateKey);
    },
    failWith(status) {
      failStatus = status;
    },
    addKey(extra) {
      published.push(extra);
    },
    close: () => close(server),
  };
}
