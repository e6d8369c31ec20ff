// The console's JSON API (docs/reference/api.md, Console API) with the in-memory access token. Every
// refusal becomes an ApiError carrying the documented {code, message} as it came.
import { accessToken, refresh } from './sign-in.js';

/** A refusal from the console API: its HTTP status and the body's code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
  }
}

function send(method, path, body) {
  return fetch(`/console/api${path}`, {
    method,
    headers: { authorization: `Bearer ${accessToken()}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

/** Calls `/console/api{path}`; an expired token is refreshed once and the call retried. Throws ApiError on a refusal. */
export async function api(method, path, body) {
  let res = await send(method, path, body);
  if (res.status === 401 && (await refresh())) res = await send(method, path, body);
  if (res.status === 204) return null;
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiError(res.status, data.code ?? 'error', data.message ?? res.statusText);
  return data;
}

/** `/tenants/:id` for the account the console shows. */
export function tenantPath(account, rest = '') {
  return `/tenants/${encodeURIComponent(account.tenant_id)}${rest}`;
}
