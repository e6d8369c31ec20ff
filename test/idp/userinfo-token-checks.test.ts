// /userinfo takes only what the apps take: tokens signed with the IdP's own key but with an
// issue time ahead of its clock, or none, are refused there as they are at the apps (RFC 9068 §2.2, §4).
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { CITADEL, startIdpFixture, type IdpFixture } from './idp-fixture';

describe('GET /userinfo checks token times as the apps do', () => {
  let f: IdpFixture;
  beforeAll(async () => {
    f = await startIdpFixture();
  });
  afterAll(() => f.close());

  /** An access token like the IdP's own (its key, its claims) with `iat` set by the test. */
  async function accessToken(iat: number | undefined): Promise<string> {
    const { kid, privateKey } = await f.idp.keys.signingKey();
    const now = nowSeconds();
    const jwt = new SignJWT({ client_id: f.config.idp.clientId, scope: 'openid profile email' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
      .setIssuer(f.config.idp.issuer)
      .setSubject(CITADEL[0].id)
      .setAudience(f.config.idp.apiAudience)
      .setExpirationTime(now + 300)
      .setJti(randomUUID());
    return (iat === undefined ? jwt : jwt.setIssuedAt(iat)).sign(privateKey);
  }

  // The system clock, which /userinfo reads as the apps do (the provider stamps its tokens with it).
  const nowSeconds = () => Math.floor(Date.now() / 1000);

  function userinfo(token: string): Promise<Response> {
    return fetch(`${f.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });
  }

  it('answers for a token issued now, and within the allowed skew ahead', async () => {
    const now = nowSeconds();
    for (const iat of [now, now + f.config.idp.clockTolerance]) {
      const res = await userinfo(await accessToken(iat));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ sub: CITADEL[0].id });
    }
  });

  it.each([
    ['issued a year ahead', 365 * 24 * 3600],
    ['issued 30 s past the allowed skew', 'skew+30'],
    ['without an issue time', undefined],
  ] as const)('refuses a token %s with 401 invalid_token', async (_name, ahead) => {
    const iat = ahead === undefined ? undefined : nowSeconds() + (ahead === 'skew+30' ? f.config.idp.clockTolerance + 30 : ahead);
    const res = await userinfo(await accessToken(iat));
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="userinfo", error="invalid_token", error_description="/);
    expect(await res.json()).toMatchObject({ error: 'invalid_token' });
  });
});
