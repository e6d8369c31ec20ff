// A tiny issuer for the package's own tests: an RSA key, its JWKS served on 127.0.0.1 (port 0)
// counting the fetches, and tokens signed with jsonwebtoken.
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import jsonwebtoken from 'jsonwebtoken';

export const ISSUER = 'https://issuer.test';
export const AUDIENCE = 'https://api.test';
export const CLIENT_ID = 'web-client';

export interface TestIssuer {
  readonly jwksUri: string;
  /** JWKS requests served so far. */
  readonly fetches: () => number;
  /** A signed token: an RFC 9068 access token unless `header`/`claims` say otherwise. */
  token(claims?: Record<string, unknown>, header?: Record<string, unknown>): string;
  /** Makes the JWKS answer 500 (the IdP is down). */
  breakJwks(): void;
  close(): Promise<void>;
}

export async function startIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwks = JSON.stringify({ keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' }] });
  let fetches = 0;
  let broken = false;
  const server: Server = createServer((_req, res) => {
    fetches += 1;
    res.writeHead(broken ? 500 : 200, { 'content-type': 'application/json' }).end(broken ? '{}' : jwks);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    jwksUri: `http://127.0.0.1:${port}/jwks`,
    fetches: () => fetches,
    token(claims = {}, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      const payload = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', iat: now, exp: now + 300, scope: 'openid api', ...claims };
      return jsonwebtoken.sign(payload, privateKey, { algorithm: 'RS256', keyid: 'k1', header: { alg: 'RS256', typ: 'at+jwt', ...header } });
    },
    breakJwks() {
      broken = true;
    },
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
