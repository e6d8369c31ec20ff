import { createHash } from 'node:crypto';
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { DEMO_PASSWORD, startTestIdp, type TestIdp } from '../helpers/idp';
import { CITADEL } from './idp-fixture';

/** at_hash computed independently of src/ (OIDC Core §3.1.3.6). */
function expectedAtHash(accessToken: string): string {
  return createHash('sha256').update(accessToken).digest().subarray(0, 16).toString('base64url');
}

describe('POST /api/v1/idp/token over real HTTP', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp();
  });
  afterAll(() => idp.close());

  it.each(CITADEL)('issues verifiable tokens for $email', async (user) => {
    const res = await fetch(`${idp.url}/api/v1/idp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: user.email, password: DEMO_PASSWORD }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('pragma')).toBe('no-cache');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await res.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'token_type']);
    expect(body.token_type).toBe('bearer');
    expect(body.expires_in).toBe(3600);

    const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
    const access = await jwtVerify(body.access_token as string, jwks, {
      issuer: idp.issuer,
      audience: idp.audience,
      algorithms: ['RS256'],
      typ: 'at+jwt',
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id', 'scope'],
    });
    expect(access.protectedHeader).toEqual({ alg: 'RS256', typ: 'at+jwt', kid: expect.any(String) });
    expect(access.payload).toEqual({
      iss: idp.url,
      sub: user.id,
      aud: 'urn:outpost:sample-api',
      client_id: 'outpost-demo-client',
      scope: 'openid profile email',
      iat: expect.any(Number),
      exp: (access.payload.iat as number) + 3600,
      jti: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    expect(Math.abs((access.payload.iat as number) - Date.now() / 1000)).toBeLessThan(10);

    const id = await jwtVerify(body.id_token as string, jwks, {
      issuer: idp.issuer,
      audience: idp.clientId,
      algorithms: ['RS256'],
      typ: 'JWT',
    });
    expect(id.protectedHeader).toEqual({ alg: 'RS256', typ: 'JWT', kid: access.protectedHeader.kid });
    expect(id.payload).toEqual({
      iss: idp.url,
      sub: user.id,
      aud: 'outpost-demo-client',
      iat: access.payload.iat,
      exp: (access.payload.iat as number) + 3600,
      auth_time: access.payload.iat,
      email: user.email,
      name: user.name,
      email_verified: true,
      at_hash: expectedAtHash(body.access_token as string),
    });
  });

  it('never lets one token pass as the other', async () => {
    const tokens = await idp.token('rick@the-citadel.com');
    const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
    await expect(
      jwtVerify(tokens.id_token, jwks, { issuer: idp.issuer, audience: idp.audience, typ: 'at+jwt' }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
    await expect(
      jwtVerify(tokens.access_token, jwks, { issuer: idp.issuer, audience: idp.clientId }),
    ).rejects.toMatchObject({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED' });
  });

  it('gives each access token its own jti and accepts any e-mail case', async () => {
    const a = await idp.token('rick@the-citadel.com');
    const b = await idp.token('Rick@The-Citadel.com');
    const claims = (t: string) => JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()) as { jti: string; sub: string };
    expect(claims(a.access_token).jti).not.toBe(claims(b.access_token).jti);
    expect(claims(b.access_token).sub).toBe(CITADEL[0].id);
    expect(decodeProtectedHeader(a.access_token).kid).toBe(decodeProtectedHeader(b.access_token).kid);
  });

  it('honours the configured lifetimes', async () => {
    const other = await startTestIdp({ ACCESS_TOKEN_TTL: '120', ID_TOKEN_TTL: '60' });
    try {
      const tokens = await other.token('beth@the-smiths.com');
      expect(tokens.expires_in).toBe(120);
      const claims = (t: string) => JSON.parse(Buffer.from(t.split('.')[1], 'base64url').toString()) as { iat: number; exp: number };
      expect(claims(tokens.access_token).exp - claims(tokens.access_token).iat).toBe(120);
      expect(claims(tokens.id_token).exp - claims(tokens.id_token).iat).toBe(60);
    } finally {
      await other.close();
    }
  });
});
