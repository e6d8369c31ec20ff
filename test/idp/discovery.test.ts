import { startTestIdp, type TestIdp } from '../helpers/idp';

describe('discovery and JWKS', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({ IDP_ISSUER: 'https://id.outpost.test' });
  });
  afterAll(() => idp.close());

  it('serves the OpenID configuration', async () => {
    const res = await fetch(`${idp.url}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    // Exactly what is implemented (OIDC Discovery §3, RFC 8414 §2), nothing more.
    expect(await res.json()).toEqual({
      issuer: 'https://id.outpost.test',
      authorization_endpoint: `${idp.url}/authorize`,
      token_endpoint: `${idp.url}/api/v1/idp/token`,
      userinfo_endpoint: `${idp.url}/userinfo`,
      revocation_endpoint: `${idp.url}/revoke`,
      end_session_endpoint: `${idp.url}/logout`,
      jwks_uri: `${idp.url}/.well-known/jwks.json`,
      grant_types_supported: ['authorization_code', 'refresh_token', 'password'],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      prompt_values_supported: ['none', 'login'],
      authorization_response_iss_parameter_supported: true,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['openid', 'profile', 'email', 'api'],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'email', 'email_verified', 'name', 'at_hash'],
    });
    expect(idp.issuer).toBe('https://id.outpost.test');
  });

  it('publishes public keys only, with kid, alg and use', async () => {
    const res = await fetch(idp.jwksUri);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(Object.keys(keys[0]).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB', kid: expect.stringMatching(/^[\w-]{43}$/) });
    expect(Buffer.from(keys[0].n as string, 'base64url')).toHaveLength(256);
  });

  it.each(['/.well-known/openid-configuration', '/.well-known/jwks.json'])('lets a configured browser origin read %s (CORS)', async (path) => {
    const cors = await startTestIdp({ IDP_CORS_ORIGINS: 'http://todo.test:3002' });
    try {
      const allowed = await fetch(`${cors.url}${path}`, { headers: { origin: 'http://todo.test:3002' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('http://todo.test:3002');
      const other = await fetch(`${cors.url}${path}`, { headers: { origin: 'http://evil.test' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await cors.close();
    }
  });

  it('sets helmet headers and a request id', async () => {
    const res = await fetch(`${idp.url}/healthz`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
  });
});
