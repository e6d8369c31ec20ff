import type { Response } from 'express';
import type { GrantStore } from './grant-store';
import type { AuthorizeRequest } from './read-authorize-request';
import type { IdpSession } from './login-sessions';

/** `error_description` when no code can be issued right now. */
const CODES_BUSY = 'too many sign-ins are under way; try again shortly';

/**
 * Sends the browser back to the client (RFC 6749 §4.1.2) with `code`, `state` and `iss`
 * (RFC 9207, so a client talking to several IdPs cannot be confused about which answered).
 * When the code table is full of other users' single codes, the client gets
 * `temporarily_unavailable` instead (RFC 6749 §4.1.2.1) and may simply try again.
 */
export function redirectWithCode(res: Response, grants: GrantStore, issuer: string, request: AuthorizeRequest, session: IdpSession): void {
  const code = grants.issueCode({
    clientId: request.client.clientId,
    user: session.user,
    scope: request.scope,
    authTime: session.authTime,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
  });
  if (code === undefined) {
    const busy = { error: 'temporarily_unavailable', error_description: CODES_BUSY, state: request.state, iss: issuer };
    redirectWithParams(res, request.redirectUri, busy);
    return;
  }
  redirectWithParams(res, request.redirectUri, { code, state: request.state, iss: issuer });
}

/** A 303 to `redirectUri` with the given query parameters added (undefined ones left out). */
export function redirectWithParams(res: Response, redirectUri: string, params: Record<string, string | undefined>): void {
  const target = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) target.searchParams.set(name, value);
  res.set('Cache-Control', 'no-store').redirect(303, target.href);
}
