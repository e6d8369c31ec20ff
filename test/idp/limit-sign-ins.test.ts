// Each GET /authorize stores an open sign-in for 10 minutes, so one address may start only so
// many per window: past it a 429 page with Retry-After; another address is not affected.
import { request } from 'node:http';
import { addressKey } from '../../src/idp/limit-sign-ins';
import { serveIdpVariant, type IdpFixture, type IdpVariant } from './idp-fixture';
import { authorizeUrl, pkcePair, startOAuthIdp } from './oauth-fixture';

/** GETs `url` from `localAddress` (Linux routes all of 127/8 to lo): status, Retry-After, body. */
function getFrom(url: string, localAddress: string): Promise<{ status: number; retryAfter?: string; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, { localAddress, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body }));
    })
      .on('error', reject)
      .end();
  });
}

describe('sign-ins one address may start', () => {
  let f: IdpFixture;
  let idp: IdpVariant;
  beforeAll(async () => {
    f = await startOAuthIdp();
    idp = await serveIdpVariant(f, { signInLimit: { perAddress: 3, windowSeconds: 600, maxAddresses: 100 } });
  });
  afterAll(async () => {
    await idp.close();
    await f.close();
  });

  it('answers the one past the bound with a 429 page and Retry-After, another address still signs in, and the window ends', async () => {
    const url = authorizeUrl(idp.url, pkcePair().challenge);
    for (let i = 0; i < 3; i += 1) expect((await getFrom(url, '127.0.7.1')).status).toBe(303);
    const refused = await getFrom(url, '127.0.7.1');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('600');
    expect(refused.body).toContain('<p role="alert">Too many sign-ins were started from your address. Try again in 600 seconds.</p>');
    expect((await getFrom(url, '127.0.7.2')).status).toBe(303);
    f.clock.advance(600);
    expect((await getFrom(url, '127.0.7.1')).status).toBe(303);
  });

  it('counts an IPv6 /64 as one address, and IPv4 (mapped or not) by its address', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(addressKey('10.1.2.3')).toBe('10.1.2.3');
  });
});
