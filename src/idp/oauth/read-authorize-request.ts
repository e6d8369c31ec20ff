import type { OAuthClient } from '../../config';
import type { RegisteredClients } from './registered-clients';
import { SUPPORTED_SCOPES } from './oauth-paths';
import { S256_CHALLENGE } from './verify-pkce';

/** A validated authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3, OIDC Core §3.1.2.1). */
export interface AuthorizeRequest {
  readonly client: OAuthClient;
  readonly redirectUri: string;
  readonly scope: string;
  readonly codeChallenge: string;
  readonly state?: string;
  readonly nonce?: string;
  /** OIDC Core §3.1.2.1: `login` forces the password, `none` forbids any page. */
  readonly prompt?: 'login' | 'none';
}

/**
 * RFC 6749 §4.1.2.1: when the client or redirect URI cannot be trusted the error is shown
 * to the user (`page`), never sent to the unverified URI; every other error goes back to
 * the client's redirect URI (`redirect`).
 */
export type AuthorizeRequestResult =
  | { readonly kind: 'ok'; readonly request: AuthorizeRequest }
  | { readonly kind: 'page'; readonly message: string }
  | {
      readonly kind: 'redirect';
      readonly redirectUri: string;
      readonly state?: string;
      readonly error: string;
      readonly description: string;
    };

const MAX_PARAM = 512;

/** A single string parameter, `null` when repeated or too long (RFC 6749 §3.1: at most once). */
function one(query: Record<string, unknown>, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' && value.length <= MAX_PARAM ? value : null;
}

/** Checks the query of `GET /authorize` in the order RFC 6749 §4.1.2.1 requires. */
export function readAuthorizeRequest(query: Record<string, unknown>, clients: RegisteredClients): AuthorizeRequestResult {
  const client = clients.find(one(query, 'client_id'));
  if (!client) return { kind: 'page', message: 'The application asking you to sign in is not registered here.' };
  const redirectUri = one(query, 'redirect_uri');
  if (typeof redirectUri !== 'string' || !client.redirectUris.includes(redirectUri)) {
    return { kind: 'page', message: 'The application sent a return address that is not registered for it.' };
  }

  const rawState = one(query, 'state');
  const state = typeof rawState === 'string' ? rawState : undefined;
  const fail = (error: string, description: string): AuthorizeRequestResult => ({
    kind: 'redirect',
    redirectUri,
    state,
    error,
    description,
  });

  const names = ['response_type', 'scope', 'code_challenge', 'code_challenge_method', 'state', 'nonce', 'prompt'];
  const repeated = names.find((n) => one(query, n) === null);
  if (repeated) return fail('invalid_request', `${repeated} must be given once and at most ${MAX_PARAM} characters`);
  if (one(query, 'response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');

  const scopes = (one(query, 'scope') ?? '').split(' ').filter(Boolean);
  if (!scopes.includes('openid')) return fail('invalid_scope', 'scope must include openid');
  const unknown = scopes.find((s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s));
  if (unknown) return fail('invalid_scope', `unsupported scope ${unknown}`);

  // RFC 7636 §4.4.1 and RFC 9700 §2.1.1: PKCE is required, and only S256 is accepted.
  const codeChallenge = one(query, 'code_challenge');
  if (typeof codeChallenge !== 'string') return fail('invalid_request', 'code_challenge is required (PKCE)');
  if (one(query, 'code_challenge_method') !== 'S256') {
    return fail('invalid_request', 'code_challenge_method must be S256');
  }
  if (!S256_CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'code_challenge is not an S256 challenge');

  const prompt = one(query, 'prompt');
  if (prompt !== undefined && prompt !== 'login' && prompt !== 'none') {
    return fail('invalid_request', 'prompt must be login or none');
  }
  const nonce = one(query, 'nonce');
  return {
    kind: 'ok',
    request: {
      client,
      redirectUri,
      scope: [...new Set(scopes)].join(' '),
      codeChallenge,
      ...(state === undefined ? {} : { state }),
      ...(typeof nonce === 'string' ? { nonce } : {}),
      ...(prompt === undefined ? {} : { prompt }),
    },
  };
}
