/**
 * HTTP helpers for the integration tests: the relay management API
 * (docs/service-interface.md §4.2, §4.3) and the admin API with a tenant's credentials,
 * bounded waits, and the edge's log lines as events — so a test waits on something that
 * happened, never on a fixed sleep.
 */
import { EventEmitter } from 'node:events';
import type { DemoTenant } from '../../src/config';
import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import type { CommandName } from '../../src/relay-protocol';

/** A tenant's keys and one of its edge connections. */
export interface TenantCredentials {
  readonly tenantId: string;
  readonly discoveryApiKey: string;
  readonly adminApiKey: string;
  readonly connectionId: string;
  readonly connectionSecret: string;
}

/** A status, the headers and the parsed JSON body (or the text when it is not JSON). */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** One element of the §2.5 `result` array. */
export interface RegistrationView {
  readonly id: string;
  readonly info: {
    readonly connection_id: string;
    readonly hostname: string;
    readonly version: string;
    readonly policy_name: string;
    readonly policy_digest: string | null;
    readonly directory_revision: number;
    readonly connected: boolean;
    readonly connected_at: string;
    readonly last_seen: string;
    readonly latest_policy_digest: string | null;
    readonly policy_drift: boolean;
    readonly central_directory_revision: number | null;
    readonly directory_lag: number;
  };
}

/** The seeded demo tenant's credentials, from what `seedControlPlane` returned. */
export function tenantFromDemo(demo: DemoTenant): TenantCredentials {
  return {
    tenantId: demo.tenant_id,
    discoveryApiKey: demo.discovery_api_key,
    adminApiKey: demo.admin_api_key,
    connectionId: demo.connection_id,
    connectionSecret: demo.connection_secret,
  };
}

async function toReply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

/** Calls `relayUrl + path` with `service-tenant-id` and `Authorization: basic <key>`. */
export async function tenantCall(
  relayUrl: string,
  path: string,
  init: { tenantId: string; key: string; method?: string; body?: unknown },
): Promise<Reply> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'service-tenant-id': init.tenantId,
    authorization: `basic ${init.key}`,
  };
  const body = init.body === undefined ? undefined : JSON.stringify(init.body);
  const method = init.method ?? (body === undefined ? 'GET' : 'POST');
  return toReply(await fetch(`${relayUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
}

/** §4.2 with the tenant's Discovery API key (`as` overrides the key, e.g. another tenant's). */
export function exec(relayUrl: string, tenant: TenantCredentials, id: string, command: CommandName, as?: { key: string }): Promise<Reply> {
  return tenantCall(relayUrl, EXEC_PATH, { tenantId: tenant.tenantId, key: as?.key ?? tenant.discoveryApiKey, body: { id, command: { [command]: {} } } });
}

/** §4.3 with the tenant's Discovery API key. */
export function listRegistrations(relayUrl: string, tenant: TenantCredentials, as?: { key: string }): Promise<Reply> {
  return tenantCall(relayUrl, INSTANCE_REGISTRATIONS_PATH, { tenantId: tenant.tenantId, key: as?.key ?? tenant.discoveryApiKey });
}

/** The tenant's registrations; throws unless the list answers 200. */
export async function registrations(relayUrl: string, tenant: TenantCredentials): Promise<RegistrationView[]> {
  const reply = await listRegistrations(relayUrl, tenant);
  if (reply.status !== 200) throw new Error(`instance_registrations answered ${reply.status}`);
  return (reply.body as { result: RegistrationView[] }).result;
}

/** The admin API (policy registry, central directory) with the tenant's admin key. */
export function admin(relayUrl: string, tenant: TenantCredentials, method: string, path: string, body?: unknown): Promise<Reply> {
  return tenantCall(relayUrl, path, { tenantId: tenant.tenantId, key: tenant.adminApiKey, method, body });
}

export { waitFor } from '../helpers/wait-for';

/** A parsed pino line. */
export type LogLine = { readonly msg?: string } & Record<string, unknown>;

/** Resolves with the next log line whose `msg` is `msg` (bounded by `timeoutMs`). */
export function nextLog(logs: EventEmitter, msg: string, timeoutMs = 5_000): Promise<LogLine> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      logs.off('log', listener);
      reject(new Error(`no "${msg}" log line within ${timeoutMs} ms`));
    }, timeoutMs);
    function listener(line: LogLine): void {
      if (line.msg !== msg) return;
      clearTimeout(timer);
      logs.off('log', listener);
      resolve(line);
    }
    logs.on('log', listener);
  });
}

/** Calls the RBAC sample app (§4.4) with a bearer access token. */
export async function callResource(appUrl: string, method: string, name: string, accessToken: string): Promise<Reply> {
  return toReply(await fetch(`${appUrl}/resource/${name}`, { method, headers: { authorization: `Bearer ${accessToken}` } }));
}

/** Asks an edge directly (`POST /api/v2/authz/is`) and returns `decisions[0].is`. */
export async function edgeAllows(edgeUrl: string, identity: { type: 'SUB' | 'JWT'; value: string }, path: string, resourceId: string): Promise<boolean> {
  const res = await fetch(`${edgeUrl}/api/v2/authz/is`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      identity_context: { type: `IDENTITY_TYPE_${identity.type}`, identity: identity.value },
      policy_context: { path, decisions: ['allowed'] },
      resource_context: { type: 'Resource', id: resourceId },
    }),
  });
  if (res.status !== 200) throw new Error(`authz/is answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { decisions: { is: boolean }[] }).decisions[0]!.is;
}
