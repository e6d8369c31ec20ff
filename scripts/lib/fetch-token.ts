/** The token endpoint's success body (service interface §2.2). */
export interface TokenResponse {
  access_token: string;
  token_type: string;
  expires_in: number;
  id_token: string;
}

import { ScriptError } from './script-error';

/**
 * Exchanges a demo user's e-mail and password for tokens at `{auth_url}/api/v1/idp/token`
 * (service interface §4.1). Errors become one-line, actionable messages.
 */
export async function fetchToken(authUrl: string, username: string, password: string): Promise<TokenResponse> {
  const endpoint = `${authUrl}/api/v1/idp/token`;
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new ScriptError(`cannot reach the IdP at ${authUrl} — is the stack running (npm start)? Set AUTH_URL otherwise.`);
  }
  const body = (await res.json().catch(() => ({}))) as Partial<TokenResponse> & { error?: string; error_description?: string };
  if (res.status === 401) throw new ScriptError(`the IdP refused ${username}: unknown user or wrong password`);
  if (res.status === 429) throw new ScriptError(`too many failed logins; retry in ${res.headers.get('retry-after') ?? 'a few'} s`);
  if (!res.ok || typeof body.access_token !== 'string' || typeof body.id_token !== 'string') {
    throw new ScriptError(`the IdP answered ${res.status}: ${body.error ?? ''} ${body.error_description ?? ''}`.trim());
  }
  return body as TokenResponse;
}
