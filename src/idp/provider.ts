import Provider, { errors, type Adapter, type ClientMetadata, type Configuration, type JWK } from 'oidc-provider';
import type { Config } from '../config';
import { logoutSource, postLogoutSuccessSource, renderError } from './provider-pages';
import { TOKEN_PATH } from './token-endpoint';
import type { MachineClient } from './machine-client';
import type { UserStore } from './user-store';

/** Where the protocol endpoints live under `{auth_url}`; discovery lists them. */
export const ROUTES = {
  authorization: '/authorize',
  token: TOKEN_PATH,
  revocation: '/revoke',
  end_session: '/logout',
  jwks: '/.well-known/jwks.json',
} as const;

/** Path of the JWKS (RFC 7517 §5). */
export const JWKS_PATH = ROUTES.jwks;
/** Path of the discovery document (OpenID Connect Discovery 1.0 §4); the provider fixes it. */
export const DISCOVERY_PATH = '/.well-known/openid-configuration';

/** Served by Outpost beside the provider (see userinfo.ts); discovery names it too. */
export const USERINFO_PATH = '/userinfo';
/** The login page of one interaction: `/login/<uid>`. */
export const LOGIN_PATH = '/login';

/** Scopes a client may ask for: the OIDC ones and the sample APIs' (`api`). */
export const SCOPES = ['openid', 'profile', 'email', 'api'] as const;

/** The one scope a machine client's token carries: the API's own (it acts for no user). */
const MACHINE_SCOPE = 'api';

/** How long an authorization code may wait for its exchange (RFC 6749 §4.1.2 recommends ≤ 10 min). */
export const CODE_TTL_SECONDS = 60;
/** How long a refresh-token family lives from sign-in, however often it rotates. */
export const GRANT_TTL_SECONDS = 8 * 3600;
/** How long the login session spares a second password entry. */
export const SESSION_TTL_SECONDS = 15 * 60;
/** How long a login page may stay open before its form is refused. */
export const LOGIN_TTL_SECONDS = 10 * 60;

/** The IdP settings the provider needs: the `idp` section of {@link Config}. */
export type ProviderOptions = Pick<
  Config['idp'],
  'issuer' | 'url' | 'apiAudience' | 'clientId' | 'accessTokenTtl' | 'idTokenTtl' | 'corsOrigins' | 'clients'
>;

export interface ProviderDeps {
  readonly options: ProviderOptions;
  readonly users: UserStore;
  /** Private signing keys, the active one first (it signs; the others stay in the JWKS). */
  readonly jwks: readonly JWK[];
  /** Secrets that sign the provider's cookies, newest first. */
  readonly cookieKeys: readonly Buffer[];
  /** Storage for codes, refresh tokens, sessions and interactions (oidc-storage.ts). */
  readonly adapter: (model: string) => Adapter;
  readonly machineClient: MachineClient;
}

/**
 * The OAuth 2.0 / OIDC protocol is node-oidc-provider's (OpenID Certified); this is only its
 * configuration for what Outpost offers: code + PKCE (S256) for the registered public
 * browser clients, refresh tokens rotated on every use, revocation (RFC 7009), RP-initiated
 * logout, client credentials for the demo machine client, and RFC 9068 JWT access tokens
 * whose `aud` is the calling client's API (RFC 8707 resource indicators).
 */
export function createProvider(deps: ProviderDeps): Provider {
  const { options, users } = deps;
  // One audience per client (the console's tokens are for the control plane only), so a token
  // stolen from one client's API cannot be replayed at another API.
  const audienceOf = new Map<string, string>(options.clients.map((c) => [c.clientId, c.audience ?? options.apiAudience]));
  audienceOf.set(options.clientId, options.apiAudience);
  audienceOf.set(deps.machineClient.clientId, options.apiAudience);
  const corsOrigins = new Set(options.corsOrigins);

  const clients: ClientMetadata[] = [
    ...options.clients.map((c) => ({
      client_id: c.clientId,
      token_endpoint_auth_method: 'none' as const,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code' as const],
      redirect_uris: [...c.redirectUris],
      post_logout_redirect_uris: [...c.postLogoutRedirectUris],
    })),
    // Scripts: the password grant (password-grant.ts); nothing to redirect to.
    { client_id: options.clientId, token_endpoint_auth_method: 'none', grant_types: ['password'], response_types: [], redirect_uris: [] } as const,
    {
      client_id: deps.machineClient.clientId,
      client_secret: deps.machineClient.clientSecret,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
    },
  ];

  const configuration: Configuration = {
    adapter: deps.adapter,
    clients,
    jwks: { keys: [...deps.jwks] },
    routes: ROUTES,
    scopes: [...SCOPES],
    responseTypes: ['code'],
    // OIDC Core §3.1.2.1: redirect_uri is required, even for a client with only one.
    allowOmittingSingleRegisteredRedirectUri: false,
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    enabledJWA: { idTokenSigningAlgValues: ['RS256'], userinfoSigningAlgValues: ['RS256'] },
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // The ID token carries e-mail and name even though an access token is issued with it.
    conformIdTokenClaims: false,
    async findAccount(_ctx, sub) {
      const user = users.list().find((u) => u.id === sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: () => ({ sub: user.id, email: user.email, email_verified: true, name: user.name }) };
    },
    // The registered clients are first-party: signing in grants what they ask, without a consent
    // page; a later request for more scope under the same session widens the grant.
    async loadExistingGrant(ctx) {
      const { client, session, params } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = session.grantIdFor(client.clientId);
      const grant =
        (grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined) ??
        new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      const scope = String(params?.scope ?? 'openid');
      grant.addOIDCScope(scope);
      grant.addResourceScope(audienceOf.get(client.clientId) ?? options.apiAudience, scope);
      await grant.save();
      return grant;
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    ttl: {
      AccessToken: options.accessTokenTtl,
      ClientCredentials: options.accessTokenTtl,
      IdToken: options.idTokenTtl,
      AuthorizationCode: CODE_TTL_SECONDS,
      RefreshToken: GRANT_TTL_SECONDS,
      Grant: GRANT_TTL_SECONDS,
      Session: SESSION_TTL_SECONDS,
      Interaction: LOGIN_TTL_SECONDS,
    },
    cookies: {
      keys: [...deps.cookieKeys],
      names: { session: 'outpost_session', interaction: 'outpost_login', resume: 'outpost_login_resume' },
      long: { httpOnly: true, sameSite: 'lax', signed: true },
      short: { httpOnly: true, sameSite: 'lax', signed: true },
    },
    interactions: { url: (_ctx, interaction) => `${LOGIN_PATH}/${interaction.uid}` },
    clientBasedCORS: (_ctx, origin) => corsOrigins.has(origin),
    features: {
      devInteractions: { enabled: false },
      // Not offered: nothing here would use them, and each is one more surface to defend.
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      // RFC 7009 §2.1: a client may revoke only the tokens issued to it.
      revocation: { enabled: true, allowedPolicy: (_ctx, client, token) => token.clientId === client.clientId },
      clientCredentials: { enabled: true },
      rpInitiatedLogout: { enabled: true, logoutSource, postLogoutSuccessSource },
      // Outpost answers /userinfo itself: the provider refuses access tokens bound to an API,
      // and every access token here is (RFC 9068); see userinfo.ts.
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, client) => audienceOf.get(client.clientId) ?? options.apiAudience,
        useGrantedResource: () => true,
        getResourceServerInfo(ctx, resource, client) {
          if (resource !== audienceOf.get(client.clientId)) throw new errors.InvalidTarget(`${client.clientId} may not ask for tokens for ${resource}`);
          const machine = client.clientId === deps.machineClient.clientId;
          // RFC 6749 §5.2: a scope the client may not have is `invalid_scope`, not a token with
          // less than was asked (the provider would drop it silently). The machine client's only
          // grant is client_credentials, whose scope is asked here.
          if (machine) {
            const refused = String(ctx.oidc.params?.scope ?? '').split(' ').filter((s) => s !== '' && s !== MACHINE_SCOPE);
            if (refused.length > 0) throw new errors.InvalidScope(`the machine client may ask for the ${MACHINE_SCOPE} scope only`, refused.join(' '));
          }
          return {
            // A machine acts for no user: only the API's own scope, none of the OIDC ones.
            scope: machine ? MACHINE_SCOPE : SCOPES.join(' '),
            audience: resource,
            accessTokenTTL: options.accessTokenTtl,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    discovery: {
      userinfo_endpoint: `${options.url}${USERINFO_PATH}`,
      prompt_values_supported: ['none', 'login', 'consent'],
      // Revocation authenticates clients as the token endpoint does.
      revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    },
    renderError,
  };
  return new Provider(options.issuer, configuration);
}
