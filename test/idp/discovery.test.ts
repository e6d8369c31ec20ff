import { startTestIdp, type TestIdp } from '../helpers/idp';

describe('discovery and JWKS', () => {
  let idp: TestIdp;
  beforeAll(async () => {
    idp = await startTestIdp({ IDP_ISSUER: 'https://id.outpost.test' });
  });
  afterAll(() => idp.close());

  it('serves the OpenID configuration: the endpoints Outpost offers, and no other', async () => {
    const res = await fetch(`${idp.url}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(doc).toMatchObject({
      issuer: 'https://id.outpost.test',
      authorization_endpoint: `${idp.url}/authorize`,
      token_endpoint: `${idp.url}/api/v1/idp/token`,
      userinfo_endpoint: `${idp.url}/userinfo`,
      revocation_endpoint: `${idp.url}/revoke`,
      end_session_endpoint: `${idp.url}/logout`,
      jwks_uri: `${idp.url}/.well-known/jwks.json`,
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials', 'password'],
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
      scopes_supported: ['openid', 'profile', 'email', 'api'],
      prompt_values_supported: ['none', 'login', 'consent'],
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    });
    const endpoints = Object.keys(doc).filter((k) => k.endsWith('_endpoint')).sort();
    expect(endpoints).toEqual(['authorization_endpoint', 'end_session_endpoint', 'revocation_endpoint', 'token_endpoint', 'userinfo_endpoint']);
    expect(idp.issuer).toBe('https://id.outpost.test');
  });

  it('publishes public keys only, with kid, alg and use', async () => {
    const res = await fetch(idp.jwksUri);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/jwk-set+json; charset=utf-8');
    const { keys } = (await res.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    const key = keys[0]!;
    // The provider holds the private JWK; only the RSA public members (RFC 7518 §6.3.1) may leave it.
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    for (const privateMember of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth']) expect(key).not.toHaveProperty(privateMember);
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB', kid: expect.stringMatching(/^[\w-]{43}$/) });
    expect(Buffer.from(key.n as string, 'base64url')).toHaveLength(256);
  });

  // Discovery and the JWKS are public (the provider's "open" CORS): any origin may read them,
  // without credentials. The token and revocation endpoints are not (allow-browser-origins.test.ts).
  it.each(['/.well-known/openid-configuration', '/.well-known/jwks.json'])('lets any browser origin read the public %s (CORS)', async (path) => {
    const other = await fetch(`${idp.url}${path}`, { headers: { origin: 'http://todo.test:3002' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBe('http://todo.test:3002');
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
    expect(other.headers.get('vary')).toMatch(/Origin/);
    const preflight = await fetch(`${idp.url}${path}`, { method: 'OPTIONS', headers: { origin: 'http://todo.test:3002', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://todo.test:3002');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET');
    const noOrigin = await fetch(`${idp.url}${path}`);
    expect(noOrigin.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('sets helmet headers and a request id', async () => {
    const res = await fetch(`${idp.url}/healthz`);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-powered-by')).toBeNull();
    expect(res.headers.get('x-request-id')).toMatch(/.+/);
  });
});
