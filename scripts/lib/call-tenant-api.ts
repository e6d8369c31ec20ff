import { refusedKeyAdvice } from './refused-key-advice';
import { ScriptError } from './script-error';
import type { TenantCredentials } from './tenant-credentials';

/** One call to a tenant API of the control plane. */
export interface TenantApiRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path below `{relay_url}`, already URL-encoded, e.g. `/api/v2/admin/policies/rbac`. */
  readonly path: string;
  readonly body?: unknown;
}

/** A successful answer: status and parsed JSON body. */
export interface TenantApiResponse<T> {
  readonly status: number;
  readonly body: T;
}

/** The one-line explanation of an error answer (the admin API's: its key is the admin key), with a hint where one helps. */
export function explainApiError(status: number, body: { code?: unknown; message?: unknown }, creds: TenantCredentials): string {
  const detail = `${typeof body.code === 'string' ? body.code : 'error'}: ${typeof body.message === 'string' ? body.message : '(no message)'}`;
  switch (status) {
    case 401:
      return `401 ${detail} — ${refusedKeyAdvice(creds, 'admin')}`;
    case 413:
      return `413 ${detail} — the request body is over the control plane's limit`;
    default:
      return `${status} ${detail}`;
  }
}

/**
 * Calls `{relay_url}<path>` with the tenant headers (`service-tenant-id`, `Authorization:
 * basic <key>`) and returns the parsed JSON. An unreachable control plane and every
 * error status become a {@link ScriptError} with a clear message (never the key).
 */
export async function callTenantApi<T>(creds: TenantCredentials, request: TenantApiRequest): Promise<TenantApiResponse<T>> {
  const url = `${creds.relayUrl}${request.path}`;
  const headers: Record<string, string> = { 'service-tenant-id': creds.tenantId, authorization: `basic ${creds.key}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    throw new ScriptError(`cannot reach the control plane at ${creds.relayUrl} — is the stack running (npm start)? Set RELAY_URL otherwise.`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ScriptError(`${request.method} ${url} answered ${res.status} with a non-JSON body — is RELAY_URL pointing at the control plane?`);
  }
  if (!res.ok) throw new ScriptError(explainApiError(res.status, (body ?? {}) as { code?: unknown; message?: unknown }, creds));
  return { status: res.status, body: body as T };
}
