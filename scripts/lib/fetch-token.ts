import { ScriptError } from './script-error';

/** The token endpoint's success body (docs/service-interface.md §2.2). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  id_token: string;
}

/** The token request failed; `status` is the IdP's answer, absent when it was unreachable. */
export class TokenRequestError extends ScriptError {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * Exchanges a demo user's e-mail and password for tokens at `{auth_url}/api/v1/idp/token`
 * (docs/service-interface.md §4.1). Errors become one-line, actionable messages.
 */
export async function fetchToken(authUrl: string, username: string, password: string): Promise<TokenResponse> {
  let res: Response;
  try {
    res = await fetch(`${authUrl}/api/v1/idp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new TokenRequestError(`cannot reach the IdP at ${authUrl} — is the stack running (npm start)? Set AUTH_URL otherwise.`);
  }
  const body = (await res.json().catch(() => ({}))) as Partial<TokenResponse> & { error?: string; error_description?: string };
  if (res.status === 401) throw new TokenRequestError(`the IdP refused ${username}: unknown user or wrong password`, 401);
  if (res.status === 429) {
    throw new TokenRequestError(`too many failed sign-ins; try again in ${res.headers.get('retry-after') ?? 'a few'} s`, 429);
  }
  if (!res.ok || typeof body.access_token !== 'string' || typeof body.id_token !== 'string') {
    const detail = body.error_description ?? body.error ?? 'no details';
    throw new TokenRequestError(`the IdP answered ${res.status}: ${detail}`, res.status);
  }
  return body as TokenResponse;
}
