/**
 * Two tenants on one control plane, each with its own edge: one tenant's keys never see
 * or drive the other's instances, and commands and directory data stay in their tenant.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createTenant } from '../../src/control-plane';
import { loadDirectorySeed } from '../../src/directory';
import { readPolicyFolder } from '../../src/policy';
import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { USERS } from '../apps/app-fixture';
import {
  admin,
  callResource,
  edgeAllows,
  exec,
  listRegistrations,
  registrations,
  tenantCall,
  type LogLine,
  type Reply,
  type TenantCredentials,
} from './stack-client';
import { startStack, type EdgeHandle, type Stack } from './stack-fixture';

let stack: Stack;
let a: TenantCredentials;
let b: TenantCredentials;
let edgeB: EdgeHandle;
const tokens: { morty?: string; beth?: string } = {};

beforeAll(async () => {
  stack = await startStack();
  a = stack.demo;
  // Tenant B: the same people, but in B's directory Morty is an admin.
  const { roles, users, resources } = loadDirectorySeed(stack.config.directorySeedFile).directory;
  const bUsers = users.map((u) => (u.id === USERS.morty.id ? { ...u, roles: ['admin'] } : u));
  const keys = await createTenant(stack.store, { name: 'tenant b', directory: { roles, users: bUsers, resources } });
  const connection = await stack.store.tenants.addConnection(keys.tenantId, 'rbac');
  await stack.store.images.push(keys.tenantId, readPolicyFolder(join(stack.config.policiesDir, 'rbac')));
  b = { ...keys, ...connection };
  edgeB = await stack.startEdge(connection);
  tokens.morty = (await stack.idp.token(USERS.morty.email)).access_token;
  tokens.beth = (await stack.idp.token(USERS.beth.email)).access_token;
});

afterAll(async () => {
  await stack?.close();
});

const UNAUTHORIZED = { code: 'unauthorized', message: 'missing or invalid tenant credentials' };
const NOT_FOUND = { code: 'instance_not_found', message: 'no instance with this id is registered for the tenant' };

function expectUnauthorized(reply: Reply): void {
  expect({ status: reply.status, body: reply.body, challenge: reply.headers.get('www-authenticate') }).toEqual({
    status: 401,
    body: UNAUTHORIZED,
    challenge: 'Basic realm="outpost"',
  });
}

describe('tenant isolation across the relay, the admin API and the edges', () => {
  it('each tenant lists only its own instance', async () => {
    const listA = await registrations(stack.relayUrl, a);
    const listB = await registrations(stack.relayUrl, b);
    expect(listA.map((r) => [r.id, r.info.connection_id, r.info.connected])).toEqual([[stack.edge.instanceId, a.connectionId, true]]);
    expect(listB.map((r) => [r.id, r.info.connection_id, r.info.connected])).toEqual([[edgeB.instanceId, b.connectionId, true]]);
  });

  it("tenant B's key cannot drive tenant A's instance: the same 404 as an unknown id, and A's edge hears nothing", async () => {
    const commandsAtA: LogLine[] = [];
    const onLog = (line: LogLine) => void (line.msg === 'relay command' && commandsAtA.push(line));
    stack.edge.logs.on('log', onLog);
    try {
      for (const command of ['discovery', 'sync_edge_directory'] as const) {
        const foreign = await exec(stack.relayUrl, b, stack.edge.instanceId, command);
        expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 404, body: NOT_FOUND });
      }
      const unknown = await exec(stack.relayUrl, b, randomUUID(), 'discovery');
      expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: NOT_FOUND });
      // B's own instance answers, proving B's key works and the exec really went through the relay.
      const own = await exec(stack.relayUrl, b, edgeB.instanceId, 'discovery');
      expect({ status: own.status, body: own.body }).toEqual({ status: 200, body: { result: {} } });
    } finally {
      stack.edge.logs.off('log', onLog);
    }
    expect(commandsAtA).toEqual([]);
  });

  it("tenant A's key with tenant B's id is 401 on both endpoints, in either credential form", async () => {
    expectUnauthorized(await listRegistrations(stack.relayUrl, b, { key: a.discoveryApiKey }));
    expectUnauthorized(await exec(stack.relayUrl, b, edgeB.instanceId, 'discovery', { key: a.discoveryApiKey }));
    // RFC 7617 form: base64("<tenant B>:<A's key>").
    const pair = Buffer.from(`${b.tenantId}:${a.discoveryApiKey}`).toString('base64');
    expectUnauthorized(await tenantCall(stack.relayUrl, INSTANCE_REGISTRATIONS_PATH, { tenantId: b.tenantId, key: pair }));
    expectUnauthorized(
      await tenantCall(stack.relayUrl, EXEC_PATH, { tenantId: b.tenantId, key: pair, body: { id: edgeB.instanceId, command: { discovery: {} } } }),
    );
    // A's admin key cannot write B's directory either.
    expectUnauthorized(
      await tenantCall(stack.relayUrl, `/api/v2/admin/directory/users/${USERS.beth.email}/roles/admin`, {
        tenantId: b.tenantId,
        key: a.adminApiKey,
        method: 'PUT',
      }),
    );
  });

  it("directory data and commands stay in their tenant: B's grant and sync change only B's edge", async () => {
    // Same user, same policy, different tenant directories.
    expect(await edgeAllows(edgeB.url, { type: 'JWT', value: tokens.morty! }, 'rbac.DELETE', 'mega-seed')).toBe(true);
    expect((await callResource(stack.appUrl, 'DELETE', 'mega-seed', tokens.morty!)).status).toBe(403);

    const grant = await admin(stack.relayUrl, b, 'PUT', `/api/v2/admin/directory/users/${USERS.beth.email}/roles/admin`);
    expect({ status: grant.status, body: grant.body }).toEqual({ status: 200, body: { revision: 2 } });
    const synced = await exec(stack.relayUrl, b, edgeB.instanceId, 'sync_edge_directory');
    expect({ status: synced.status, body: synced.body }).toEqual({ status: 200, body: { result: {} } });

    expect(await edgeAllows(edgeB.url, { type: 'JWT', value: tokens.beth! }, 'rbac.DELETE', 'mega-seed')).toBe(true);
    const bethAtA = await callResource(stack.appUrl, 'DELETE', 'mega-seed', tokens.beth!);
    expect({ status: bethAtA.status, body: bethAtA.body }).toEqual({ status: 403, body: { code: 'forbidden', message: 'Forbidden by policy rbac.DELETE' } });

    expect(edgeB.edge.status().directory_revision).toBe(2);
    expect(stack.edge.edge.status().directory_revision).toBe(1);
    const [registrationA] = await registrations(stack.relayUrl, a);
    const [registrationB] = await registrations(stack.relayUrl, b);
    expect([registrationA?.info.directory_revision, registrationB?.info.directory_revision]).toEqual([1, 2]);
  });
});
