import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH, REGISTRATIONS_PAGE } from '../../src/relay';
import type { BroadcastResult } from '../../src/relay-broadcast';
import { BROADCAST_PATH, type CommandName } from '../../src/relay-protocol';
import { refusedKeyAdvice } from './refused-key-advice';
import { ScriptError } from './script-error';
import type { TenantCredentials } from './tenant-credentials';

/** One element of the instance registration list (docs/service-interface.md §2.5). */
export interface InstanceRegistration {
  readonly id: string;
  readonly info: {
    readonly connection_id: string;
    readonly connected?: boolean;
    readonly last_seen?: string;
    readonly [field: string]: unknown;
  };
}

/** A relay answer: status and JSON body, error statuses included. */
export interface RelayAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Calls the relay management API with the tenant headers of §4.2/§4.3; never logs the key. */
async function callRelay(creds: TenantCredentials, path: string, body?: unknown): Promise<RelayAnswer> {
  const url = `${creds.relayUrl}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', 'service-tenant-id': creds.tenantId, authorization: `basic ${creds.key}` },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(60_000),
    });
  } catch {
    throw new ScriptError(`cannot reach the relay at ${creds.relayUrl} — is the stack running (npm start)? Set RELAY_URL otherwise.`);
  }
  const text = await res.text();
  try {
    return { status: res.status, body: text === '' ? {} : JSON.parse(text) };
  } catch {
    throw new ScriptError(`${url} answered ${res.status} with a non-JSON body — is RELAY_URL pointing at the control plane?`);
  }
}

function detail(body: unknown): string {
  const { code, message } = (body ?? {}) as { code?: unknown; message?: unknown };
  return `${typeof code === 'string' ? code : 'error'}: ${typeof message === 'string' ? message : '(no message)'}`;
}

/** One clear line per error status of the two relay endpoints. */
export function explainRelayError(answer: RelayAnswer, creds: TenantCredentials, instanceId?: string): string {
  const d = `${answer.status} ${detail(answer.body)}`;
  switch (answer.status) {
    case 400:
      return `${d} — the relay refused the request body`;
    case 401:
      return `${d} — ${refusedKeyAdvice(creds, 'discovery')}`;
    case 404:
      return `${d} — instance ${instanceId ?? '?'} is not registered for tenant ${creds.tenantId}; find the right id with npm run find-instance -- <connection-id>`;
    case 409:
      if ((answer.body as { code?: unknown } | null)?.code === 'too_many_edges') return `${d}`;
      return `${d} — the edge authorizer is not connected to the relay right now; is it running?`;
    case 429:
      return `${d} — retry in a moment`;
    case 502:
      return `${d} — the edge authorizer ran the command and reported this failure; it keeps serving its last good state`;
    case 504:
      return `${d} — the edge did not confirm in time (RELAY_EXEC_TIMEOUT_MS); it may still finish`;
    default:
      return d;
  }
}

/** GET §4.3: every instance registration of the tenant, following `next_page_token`. */
export async function listInstanceRegistrations(
  creds: TenantCredentials,
  pageSize: number = REGISTRATIONS_PAGE.maxSize,
): Promise<InstanceRegistration[]> {
  const all: InstanceRegistration[] = [];
  let token: string | undefined;
  do {
    const query = `?page_size=${pageSize}${token === undefined ? '' : `&page_token=${encodeURIComponent(token)}`}`;
    const answer = await callRelay(creds, `${INSTANCE_REGISTRATIONS_PATH}${query}`);
    if (answer.status !== 200) throw new ScriptError(explainRelayError(answer, creds));
    const { result, next_page_token: next } = answer.body as { result?: unknown; next_page_token?: unknown };
    if (!Array.isArray(result)) throw new ScriptError('the relay answered 200 without a result array');
    all.push(...(result as InstanceRegistration[]));
    token = typeof next === 'string' ? next : undefined;
  } while (token !== undefined);
  return all;
}

/**
 * The §4.3 usage rule: the `id` of the element whose `info.connection_id` equals the
 * connection id. When an edge's data directory was reset several ids share a connection;
 * the connected one, then the most recently seen, wins.
 */
export function selectInstanceId(registrations: readonly InstanceRegistration[], connectionId: string): string {
  const matches = registrations
    .filter((r) => r.info.connection_id === connectionId)
    .sort((x, y) => Number(y.info.connected === true) - Number(x.info.connected === true) || String(y.info.last_seen ?? '').localeCompare(String(x.info.last_seen ?? '')));
  const first = matches[0];
  if (!first) throw new ScriptError(`no instance is registered for connection ${connectionId} — has its edge authorizer connected to the relay yet?`);
  return first.id;
}

/** Finds the instance id of a connection (list + usage rule). */
export async function findInstanceId(creds: TenantCredentials, connectionId: string): Promise<string> {
  return selectInstanceId(await listInstanceRegistrations(creds), connectionId);
}

/** POST §4.2; resolves with the 200 answer, throws a ScriptError explaining any other status. */
export async function execRelayCommand(creds: TenantCredentials, instanceId: string, command: CommandName): Promise<RelayAnswer> {
  const answer = await callRelay(creds, EXEC_PATH, { id: instanceId, command: { [command]: {} } });
  if (answer.status !== 200) throw new ScriptError(explainRelayError(answer, creds, instanceId));
  return answer;
}

/** Which edges a broadcast is for (docs/reference/api.md, "Broadcast"). */
export interface BroadcastFilterOptions {
  readonly policyName?: string;
  readonly staleOnly?: boolean;
}

/** POST …/broadcast; resolves with the result of a 200, throws a ScriptError explaining any other status. */
export async function broadcastRelayCommand(creds: TenantCredentials, command: CommandName, filter: BroadcastFilterOptions = {}): Promise<BroadcastResult> {
  const wanted = { ...(filter.policyName === undefined ? {} : { policy_name: filter.policyName }), ...(filter.staleOnly ? { stale_only: true } : {}) };
  const answer = await callRelay(creds, BROADCAST_PATH, { command: { [command]: {} }, ...(Object.keys(wanted).length > 0 ? { filter: wanted } : {}) });
  if (answer.status !== 200) throw new ScriptError(explainRelayError(answer, creds));
  const result = (answer.body as { result?: BroadcastResult }).result;
  if (result === undefined || !Array.isArray(result.failed)) throw new ScriptError('the relay answered 200 without a broadcast result');
  return result;
}
