import type { OAuthClient } from '../../config';
import { OAuthError } from '../../http';
import type { Logger } from '../../observability';
import type { CheckPassword } from '../check-password';
import type { IssueTokens } from '../issue-tokens';
import type { GrantStore } from './grant-store';
import type { FormParams } from './read-form';
import type { RegisteredClients } from './registered-clients';

/** What every grant handler may use. */
export interface GrantDeps {
  readonly clients: RegisteredClients;
  readonly grants: GrantStore;
  readonly issueTokens: IssueTokens;
  readonly checkPassword: CheckPassword;
  readonly logger: Logger;
  /** The demo client of the password grant (`DEMO_CLIENT_ID`). */
  readonly demoClientId: string;
}

/** The request as a grant sees it. */
export interface GrantRequest {
  readonly params: FormParams;
  readonly requestId: string;
  readonly address: string | undefined;
}

/** One grant type (RFC 6749 §4, §6): form parameters in, the token response body out. */
export type GrantHandler = (request: GrantRequest, deps: GrantDeps) => Promise<Record<string, unknown>>;

/**
 * The calling public client (RFC 6749 §2.3: `none`, identified by `client_id`), or
 * 401 `invalid_client` (RFC 6749 §5.2).
 */
export function requireClient(params: FormParams, deps: GrantDeps): OAuthClient {
  const client = deps.clients.find(params.optional('client_id'));
  if (!client) throw new OAuthError(401, 'invalid_client', 'unknown client_id');
  return client;
}

/** 400 `invalid_grant` (RFC 6749 §5.2). */
export function invalidGrant(message: string): OAuthError {
  return new OAuthError(400, 'invalid_grant', message);
}
