// A standard OIDC client (openid-client v6) completes the code flow against the IdP with
// nothing but the discovery URL, a client id and a redirect URI; jose verifies the tokens.
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { CITADEL, type IdpFixture } from './idp-fixture';
import { CLIENT_ID, PASSWORD, REDIRECT_URI, setCookies, signInThroughPage, startOAuthIdp } from './oauth-fixture';

describe('OAuth 2.0 / OIDC interop with openid-client', () => {
  let f: IdpFixture;
  let config: client.Configuration;
  beforeAll(async () => {
    f = await startOAuthIdp();
    config = await client.discovery(new URL(f.url), CLIENT_ID, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
  });
  afterAll(() => f.close());

  async function codeFlow(email: string): Promise<client.TokenEndpointResponse & client.TokenEndpointResponseHelpers> {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile email api',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    const { callback } = await signInThroughPage(f.url, url.href, email);
    return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
  }

  it('discovers every endpoint it needs', () => {
    const meta = config.serverMetadata();
    expect(meta.issuer).toBe(f.url);
    expect(meta.authorization_endpoint).toBe(`${f.url}/authorize`);
    expect(meta.token_endpoint).toBe(`${f.url}/api/v1/idp/token`);
    expect(meta.userinfo_endpoint).toBe(`${f.url}/userinfo`);
    expect(meta.revocation_endpoint).toBe(`${f.url}/revoke`);
    expect(meta.end_session_endpoint).toBe(`${f.url}/logout`);
    expect(meta.code_challenge_methods_supported).toEqual(['S256']);
    expect(meta.grant_types_supported).toEqual(['authorization_code', 'refresh_token', 'client_credentials', 'password']);
  });

  it('completes code + PKCE; the tokens verify with jose (RFC 9068 access token, ID token with nonce)', async () => {
    const tokens = await codeFlow(CITADEL[1].email);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.scope).toBe('openid profile email api');
    expect(typeof tokens.refresh_token).toBe('string');
    const claims = tokens.claims();
    expect(claims).toMatchObject({ sub: CITADEL[1].id, aud: CLIENT_ID, iss: f.url, email: CITADEL[1].email });

    const jwks = createRemoteJWKSet(new URL(`${f.url}/.well-known/jwks.json`));
    const access = await jwtVerify(tokens.access_token, jwks, {
      issuer: f.url,
      audience: f.config.idp.apiAudience,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(access.payload).toMatchObject({ sub: CITADEL[1].id, client_id: CLIENT_ID, scope: 'openid profile email api' });
    const id = await jwtVerify(tokens.id_token as string, jwks, { issuer: f.url, audience: CLIENT_ID, algorithms: ['RS256'] });
    expect(typeof id.payload.nonce).toBe('string');
  });

  it("issues access tokens of one shape from the provider's code flow and Outpost's seed endpoint (RFC 9068)", async () => {
    const viaProvider = decodeJwt((await codeFlow(CITADEL[4].email)).access_token);
    const seed = await f.post(JSON.stringify({ username: CITADEL[4].email, password: PASSWORD }));
    const viaSeed = decodeJwt(((await seed.json()) as { access_token: string }).access_token);
    const claims = ['aud', 'client_id', 'exp', 'iat', 'iss', 'jti', 'scope', 'sub'];
    expect(Object.keys(viaProvider).sort()).toEqual(claims);
    expect(Object.keys(viaSeed).sort()).toEqual(claims);
    expect(viaProvider.exp! - viaProvider.iat!).toBe(viaSeed.exp! - viaSeed.iat!);
  });

  it('reads userinfo with the access token', async () => {
    const tokens = await codeFlow(CITADEL[0].email);
    const info = await client.fetchUserInfo(config, tokens.access_token, CITADEL[0].id);
    expect(info).toEqual({ sub: CITADEL[0].id, name: CITADEL[0].name, email: CITADEL[0].email, email_verified: true });
  });

  it('refreshes with rotation, and a revoked refresh token no longer works', async () => {
    const first = await codeFlow(CITADEL[2].email);
    const second = await client.refreshTokenGrant(config, first.refresh_token as string);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.claims()?.sub).toBe(CITADEL[2].id);

    await client.tokenRevocation(config, second.refresh_token as string);
    await expect(client.refreshTokenGrant(config, second.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  // RFC 7009 §2.1: the server checks that the token was issued to the client asking. Another
  // registered client (here the machine client, authenticated with its secret) gets no effect.
  it("does not let another client revoke a user's refresh token (RFC 7009 §2.1)", async () => {
    const tokens = await codeFlow(CITADEL[1].email);
    const { clientId, clientSecret } = f.idp.machineClient;
    const res = await fetch(`${f.url}/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ token: tokens.refresh_token as string, token_type_hint: 'refresh_token' }).toString(),
    });
    // RFC 7009 §2.2 answers 200 whatever the outcome, so the proof is that the token still works.
    expect(res.status).toBe(200);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string);
    expect(refreshed.claims()?.sub).toBe(CITADEL[1].id);
  });

  // Access tokens are self-contained JWTs (RFC 9068), valid until `exp` wherever they are checked:
  // there is nothing to revoke, and RFC 7009 §2.2.1 has the server say so rather than answer 200.
  it('answers 400 unsupported_token_type for an access token, which stays valid until it expires', async () => {
    const tokens = await codeFlow(CITADEL[4].email);
    const res = await fetch(`${f.url}/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, token_type_hint: 'access_token', client_id: CLIENT_ID }).toString(),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unsupported_token_type' });
    expect((await fetch(`${f.url}/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200);
  });

  it('revokes the whole family when a spent refresh token comes back', async () => {
    const first = await codeFlow(CITADEL[3].email);
    const second = await client.refreshTokenGrant(config, first.refresh_token as string);
    await expect(client.refreshTokenGrant(config, first.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, second.refresh_token as string)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('gets a machine token with client credentials (RFC 6749 §4.4, client_secret_basic)', async () => {
    const { clientId, clientSecret } = f.idp.machineClient;
    const machine = await client.discovery(new URL(f.url), clientId, undefined, client.ClientSecretBasic(clientSecret), {
      execute: [client.allowInsecureRequests],
    });
    const tokens = await client.clientCredentialsGrant(machine, { scope: 'api' });
    expect(tokens.scope).toBe('api');
    expect(tokens.id_token).toBeUndefined();
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: clientId, client_id: clientId, aud: f.config.idp.apiAudience });
  });

  it('builds a sign-out URL that, once confirmed, returns to the registered page', async () => {
    const url = client.buildEndSessionUrl(config, { post_logout_redirect_uri: REDIRECT_URI, client_id: CLIENT_ID, state: 's' });
    const page = await fetch(url, { redirect: 'manual' });
    // The provider asks before it signs out, so a link alone cannot sign anyone out.
    expect(page.status).toBe(200);
    const html = await page.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] as string;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
    const res = await fetch(action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: setCookies(page).join('; ') },
      body: new URLSearchParams({ xsrf, logout: 'yes' }).toString(),
    });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`${REDIRECT_URI}?state=s`);
  });
});
