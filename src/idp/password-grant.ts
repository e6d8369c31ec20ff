import type Provider from 'oidc-provider';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import type { ErrorCode, StatusOf } from '../http';
import type { Logger } from '../observability';
import type { CheckPassword, PasswordCheck } from './check-password';
import { GRANTED_SCOPE, type IssueTokens } from './issue-tokens';
import { INVALID_CREDENTIALS } from './token-endpoint';

/** An RFC 6749 §5.2 error the provider answers as is: `status`, `error`, our description. */
function oauthError<C extends ErrorCode>(status: StatusOf<C>, error: C, description: string): errors.OIDCProviderError {
  const err = new errors.OIDCProviderError(status, error);
  err.error_description = description;
  err.expose = true; // shown to the client even as a 5xx
  return err;
}

/** A failed password check as RFC 6749 §5.2 answers it here (the JSON endpoint's 401 is 400 here). */
function passwordFailure(ctx: KoaContextWithOIDC, check: Exclude<PasswordCheck, { outcome: 'ok' }>): errors.OIDCProviderError {
  if (check.outcome === 'invalid') return oauthError(400, 'invalid_grant', INVALID_CREDENTIALS);
  ctx.set('Retry-After', String(check.retryAfter));
  return check.outcome === 'throttled'
    ? oauthError(429, 'too_many_requests', `too many failed sign-in attempts; try again in ${check.retryAfter} seconds`)
    : oauthError(503, 'temporarily_unavailable', 'the sign-in service is busy; try again shortly');
}

const USER_SCOPES = new Set(GRANTED_SCOPE.split(' '));

/**
 * The scope a password grant asks for (RFC 6749 §3.3): absent, every user scope; otherwise only
 * scopes a user's token may carry, each once, in the order asked.
 * @throws InvalidScope naming the scopes refused (RFC 6749 §5.2).
 */
function grantedScope(asked: unknown): string {
  if (typeof asked !== 'string' || asked === '') return GRANTED_SCOPE;
  const scopes = [...new Set(asked.split(' ').filter(Boolean))];
  const refused = scopes.filter((s) => !USER_SCOPES.has(s));
  if (refused.length > 0 || scopes.length === 0) throw new errors.InvalidScope(`a user's token may carry ${GRANTED_SCOPE} only`, refused.join(' '));
  return scopes.join(' ');
}

/**
 * Adds `grant_type=password` (RFC 6749 §4.3) to the provider's token endpoint, for scripts
 * and demos only (RFC 9700 §2.4 forbids it for real clients; browsers use the code flow).
 * The provider authenticates the client (the demo client, `DEMO_CLIENT_ID`); Outpost checks
 * the password through the one throttle and hashing bound every sign-in shares, and issues
 * the same tokens as the seed's JSON endpoint, narrowed to the `scope` asked for, and says the
 * scope granted (RFC 6749 §5.1). No refresh token: a script asks again.
 */
export function registerPasswordGrant(provider: Provider, deps: { checkPassword: CheckPassword; issueTokens: IssueTokens; logger: Logger }): void {
  provider.registerGrantType('password', async function passwordGrant(ctx: KoaContextWithOIDC) {
    const params = ctx.oidc.params as Record<string, unknown>;
    for (const name of ['username', 'password'] as const) {
      if (typeof params[name] !== 'string' || params[name] === '') throw new errors.InvalidRequest(`missing ${name}`);
    }
    const username = params.username as string;
    const password = params.password as string;
    if (username.length > 256 || password.length > 1024) throw new errors.InvalidRequest('username or password is too long');
    // Before the password is checked: a request that cannot succeed costs no hashing.
    const scope = grantedScope(params.scope);

    const check = await deps.checkPassword(username, password, ctx.req.socket.remoteAddress);
    if (check.outcome !== 'ok') {
      deps.logger.info({ outcome: check.outcome }, 'password grant refused');
      throw passwordFailure(ctx, check);
    }
    ctx.body = { ...(await deps.issueTokens(check.user, { clientId: ctx.oidc.client!.clientId, scope })), scope };
    deps.logger.info({ sub: check.user.id }, 'tokens issued (password grant)');
  }, ['username', 'password', 'scope']);
}
