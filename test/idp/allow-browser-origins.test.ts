import { TOKEN_PATH } from '../../src/idp';
import { startIdpFixture, type IdpFixture } from './idp-fixture';

const PAGE = 'http://localhost:3002';

describe('IdP CORS for the todo page', () => {
  let idp: IdpFixture;
  beforeAll(async () => {
    idp = await startIdpFixture({ IDP_CORS_ORIGINS: `${PAGE}, http://app.example` });
  });
  afterAll(() => idp.close());

  it('answers a preflight from an allowed origin with 204 and the allowed method and header', async () => {
    const res = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'OPTIONS',
      headers: { origin: PAGE, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST');
    // Authorization: /userinfo takes the access token as a Bearer header (RFC 6750 §2.1).
    expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type, Authorization');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('names the allowed origin on the token response itself', async () => {
    const res = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { origin: 'http://app.example', 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'beth@the-smiths.com', password: 'V@erySecre#t123!' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('gives other origins no CORS headers, so browsers block them', async () => {
    const preflight = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).not.toBe(204);
    const jwks = await fetch(`${idp.url}/.well-known/jwks.json`, { headers: { origin: 'http://localhost:30020' } });
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('access-control-allow-origin')).toBeNull();
  });
});
