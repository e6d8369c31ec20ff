import { ScriptError } from './script-error';

/** What the RBAC app answered: status, trimmed body text and the `WWW-Authenticate` challenge. */
export interface ResourceAnswer {
  readonly status: number;
  readonly body: string;
  readonly challenge: string | null;
}

/**
 * `DELETE {app_url}/resource/<name>` (docs/service-interface.md §4.4) with the given Authorization
 * header value, or none. An unreachable app becomes a one-line {@link ScriptError}.
 */
export async function deleteResource(url: string, authorization: string | undefined): Promise<ResourceAnswer> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'DELETE',
      headers: authorization ? { authorization } : {},
      signal: AbortSignal.timeout(10_000),
    });
  } catch {
    throw new ScriptError(`cannot reach the RBAC app at ${url} — is the stack running (npm start)? Set APP_URL otherwise.`);
  }
  return { status: res.status, body: (await res.text()).trim(), challenge: res.headers.get('www-authenticate') };
}
