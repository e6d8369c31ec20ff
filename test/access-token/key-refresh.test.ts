import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { baseUrl, close } from '../../src/http';
import { createSigningKey, publicJwk, signRs256, type SigningKey } from '../helpers/tokens';
import { startVerifierPair, type VerifierPair } from './verifier-pair';

const ISSUER = 'https://idp.test';
const AUDIENCE = 'urn:outpost:test-api';
const MINUTE = 60_000;
const keyA = createSigningKey('key-a');
const keyB = createSigningKey('key-b');

// Only Date is faked, so both verifiers (and any library reading Date.now) see the same moved clock.
beforeEach(() => {
  jest.useFakeTimers({
    doNotFake: ['hrtime', 'nextTick', 'performance', 'queueMicrotask', 'setImmediate', 'clearImmediate', 'setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'],
    now: Date.UTC(2030, 0, 1),
  });
});
afterEach(() => jest.useRealTimers());

/** A JWKS endpoint serving whatever `published` holds at the time of each request. */
async function startJwks(published: SigningKey[]): Promise<{ server: Server; jwksUri: string }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map(publicJwk) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, jwksUri: `${baseUrl(server)}/.well-known/jwks.json` };
}

function token(key: SigningKey): string {
  const iat = Math.floor(Date.now() / 1000);
  const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'user-1', iat, exp: iat + 3600, jti: randomUUID() };
  return signRs256({ typ: 'at+jwt', kid: key.kid }, claims, key.privateKey);
}

const advance = (ms: number) => jest.setSystemTime(Date.now() + ms);

describe('the key set is refreshed on a schedule', () => {
  let pair: VerifierPair | undefined;
  afterEach(async () => {
    await pair?.close();
    pair = undefined;
  });

  it('stops accepting a key withdrawn from the JWKS once the set is 5 minutes old', async () => {
    const published = [keyA, keyB];
    const jwks = await startJwks(published);
    try {
      pair = await startVerifierPair({ issuer: ISSUER, audience: AUDIENCE, jwksUri: jwks.jwksUri });
      expect([await pair.app(token(keyB)), await pair.edge(token(keyB))]).toEqual([200, 200]);
      published.pop(); // the IdP withdraws key B
      advance(5 * MINUTE);
      expect([await pair.app(token(keyB)), await pair.edge(token(keyB))]).toEqual([401, 400]);
      expect([await pair.app(token(keyA)), await pair.edge(token(keyA))]).toEqual([200, 200]);
    } finally {
      await close(jwks.server);
    }
  });

  it('keeps the keys it has and its verified tokens through a 10-minute IdP outage, in the apps and the edge alike', async () => {
    const jwks = await startJwks([keyA]);
    pair = await startVerifierPair({ issuer: ISSUER, audience: AUDIENCE, jwksUri: jwks.jwksUri });
    const seen = token(keyA);
    expect([await pair.app(seen), await pair.edge(seen)]).toEqual([200, 200]);
    await close(jwks.server); // the IdP goes down
    advance(11 * MINUTE);
    expect([await pair.app(seen), await pair.edge(seen)]).toEqual([200, 200]);
    const fresh = token(keyA);
    expect([await pair.app(fresh), await pair.edge(fresh)]).toEqual([200, 200]);
    // A key nobody has seen still cannot be checked: our fault, 503, never an allow.
    expect([await pair.app(token(keyB)), await pair.edge(token(keyB))]).toEqual([503, 503]);
  });
});
