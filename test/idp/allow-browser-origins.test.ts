import { TOKEN_PATH } from '../../src/idp';
import { startIdpFixture, type IdpFixture } from './idp-fixture';

const PAGE = 'http://localhost:3002';
const EVIL = 'http://evil.example';
const PASSWORD = 'V@erySecre#t123!';

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
      body: JSON.stringify({ username: 'beth@the-smiths.com', password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://app.example');
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('names the allowed origin on the form-encoded (provider\'s) token response too', async () => {
    const res = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { origin: PAGE, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: idp.config.idp.clientId, username: 'beth@the-smiths.com', password: PASSWORD }).toString(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('vary')).toMatch(/Origin/);
  });

  it('gives other origins no CORS headers on the token endpoint, so browsers block them', async () => {
    const preflight = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'OPTIONS',
      headers: { origin: EVIL, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.status).not.toBe(204);
    const json = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'beth@the-smiths.com', password: PASSWORD }),
    });
    expect(json.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses the provider\'s token and revocation requests from other origins outright (clientBasedCORS)', async () => {
    // Right credentials, wrong origin: no tokens at all, not just unreadable ones.
    const token = await fetch(`${idp.url}${TOKEN_PATH}`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'password', client_id: idp.config.idp.clientId, username: 'beth@the-smiths.com', password: PASSWORD }).toString(),
    });
    expect(token.status).toBe(400);
    expect(token.headers.get('access-control-allow-origin')).toBeNull();
    expect(await token.json()).toEqual({ error: 'invalid_request', error_description: `origin ${EVIL} not allowed for client: ${idp.config.idp.clientId}` });
    const revoke = await fetch(`${idp.url}/revoke`, {
      method: 'POST',
      headers: { origin: EVIL, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=outpost-todo&token=unknown',
    });
    expect(revoke.status).toBe(400);
    expect(revoke.headers.get('access-control-allow-origin')).toBeNull();
    expect(await revoke.json()).toEqual({ error: 'invalid_request', error_description: `origin ${EVIL} not allowed for client: outpost-todo` });
  });

  it('lets any origin read the public JWKS, without credentials (discovery.test.ts covers both documents)', async () => {
    const jwks = await fetch(`${idp.url}/.well-known/jwks.json`, { headers: { origin: 'http://localhost:30020' } });
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('access-control-allow-origin')).toBe('http://localhost:30020');
    expect(jwks.headers.get('access-control-allow-credentials')).toBeNull();
  });
});
