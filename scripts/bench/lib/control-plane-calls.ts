// The benchmark's HTTP calls to the control plane (admin and management APIs, as
// operators make them) and to the edge's decision API. Loopback only.
import type { ControlPlaneInfo } from './control-plane-server';

import http from 'node:http';

const TIMEOUT_MS = 15_000;
// One keep-alive pool for every call: node:http costs the client less than fetch, so the
// figures say more about the server.
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

/** One HTTP exchange over the shared keep-alive agent; resolves to status and body text. */
export function request(url: string, method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent, timeout: TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Closes the idle keep-alive sockets so the script can exit. */
export function closeCalls(): void {
  agent.destroy();
}

async function call(url: string, init: { method: string; key: string; tenantId: string; body?: unknown }): Promise<unknown> {
  const headers = { 'content-type': 'application/json', 'service-tenant-id': init.tenantId, authorization: `basic ${init.key}` };
  const res = await request(url, init.method, headers, init.body === undefined ? undefined : JSON.stringify(init.body));
  if (res.status < 200 || res.status >= 300) throw new Error(`${init.method} ${new URL(url).pathname} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.text ? JSON.parse(res.text) : undefined;
}

/** `POST /api/v2/management/control_plane/exec` (docs/service-interface.md §4.2); resolves on `{"result":{}}`. */
export async function execCommand(cp: ControlPlaneInfo, instanceId: string, command: 'discovery' | 'sync_edge_directory'): Promise<void> {
  await call(`${cp.url}/api/v2/management/control_plane/exec`, {
    method: 'POST',
    key: cp.discoveryApiKey,
    tenantId: cp.tenantId,
    body: { id: instanceId, command: { [command]: {} } },
  });
}

/** What one broadcast came to (docs/reference/api.md, "Broadcast"). */
export interface BroadcastCounts {
  readonly sent: number;
  readonly confirmed: number;
  readonly failed: readonly { id: string; code: string }[];
  readonly not_connected: number;
}

/** `POST /api/v2/management/control_plane/broadcast`: one command to every connected edge of the tenant; resolves with the result. */
export async function broadcastCommand(cp: ControlPlaneInfo, command: 'discovery' | 'sync_edge_directory'): Promise<BroadcastCounts> {
  const answer = (await call(`${cp.url}/api/v2/management/control_plane/broadcast`, {
    method: 'POST',
    key: cp.discoveryApiKey,
    tenantId: cp.tenantId,
    body: { command: { [command]: {} } },
  })) as { result: BroadcastCounts };
  return answer.result;
}

/** Pushes a policy folder's files as a new image; resolves to its digest. */
export async function pushPolicy(cp: ControlPlaneInfo, name: string, files: Record<string, string>): Promise<string> {
  const body = (await call(`${cp.url}/api/v2/admin/policies/${name}`, {
    method: 'POST',
    key: cp.adminApiKey,
    tenantId: cp.tenantId,
    body: { files },
  })) as { digest: string };
  return body.digest;
}

/** Grants or revokes a role in the central directory; resolves to the new revision. */
export async function setRole(cp: ControlPlaneInfo, user: string, role: string, granted: boolean): Promise<number> {
  const body = (await call(`${cp.url}/api/v2/admin/directory/users/${encodeURIComponent(user)}/roles/${role}`, {
    method: granted ? 'PUT' : 'DELETE',
    key: cp.adminApiKey,
    tenantId: cp.tenantId,
  })) as { revision: number };
  return body.revision;
}

/** Waits (bounded) until the relay lists `instanceId` as connected; exec answers 404/409 before. */
export async function waitForRegistration(cp: ControlPlaneInfo, instanceId: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const body = (await call(`${cp.url}/api/v2/management/control_plane/instance_registrations`, {
      method: 'GET',
      key: cp.discoveryApiKey,
      tenantId: cp.tenantId,
    })) as { result: { id: string; info: { connected: boolean } }[] };
    if (body.result.some((r) => r.id === instanceId && r.info.connected)) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`instance ${instanceId} did not register within ${timeoutMs} ms`);
}

/** The Topaz `Is` body for a SUB identity and a `Resource`. */
export function isRequestBody(principal: string, path: string, resourceId: string): string {
  return JSON.stringify({
    identity_context: { type: 'IDENTITY_TYPE_SUB', identity: principal },
    policy_context: { path, decisions: ['allowed'] },
    resource_context: { type: 'Resource', id: resourceId },
  });
}

/** Asks the edge's decision API; resolves to `decisions[0].is`. */
export async function askEdge(edgeUrl: string, principal: string, path: string, resourceId: string): Promise<boolean> {
  const res = await request(`${edgeUrl}/api/v2/authz/is`, 'POST', { 'content-type': 'application/json' }, isRequestBody(principal, path, resourceId));
  if (res.status !== 200) throw new Error(`the edge answered ${res.status}`);
  const body = JSON.parse(res.text) as { decisions: { is: boolean }[] };
  return body.decisions[0]?.is === true;
}
