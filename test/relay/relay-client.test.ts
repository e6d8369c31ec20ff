import { ScriptError } from '../../scripts/lib/script-error';
import { broadcastRelayCommand, execRelayCommand, findInstanceId, listInstanceRegistrations, selectInstanceId } from '../../scripts/lib/relay-client';
import type { TenantCredentials } from '../../scripts/lib/tenant-credentials';
import { startRelayKit } from './relay-kit';
import type { RelayKit, TestTenant } from './relay-kit';

// The library behind `npm run find-instance` and `npm run relay-exec`, against a real relay.
describe('scripts/lib/relay-client', () => {
  let kit: RelayKit;
  const creds = (t: TestTenant, key = t.discoveryApiKey): TenantCredentials => ({ relayUrl: kit.url, tenantId: t.tenantId, key, source: 'test' });
  beforeAll(async () => {
    kit = await startRelayKit();
  });
  afterAll(() => kit.stop());

  it('finds the instance id of a connection and sends both commands', async () => {
    const edge = await kit.edge(kit.a, { instanceId: 'client-edge' });
    expect(await findInstanceId(creds(kit.a), kit.a.connectionId)).toBe('client-edge');
    await expect(execRelayCommand(creds(kit.a), 'client-edge', 'discovery')).resolves.toEqual({ status: 200, body: { result: {} } });
    await expect(execRelayCommand(creds(kit.a), 'client-edge', 'sync_edge_directory')).resolves.toEqual({ status: 200, body: { result: {} } });
    expect(edge.commands.map((c) => c.command)).toEqual(['discovery', 'sync_edge_directory']);
  });

  it('follows next_page_token until it has every registration', async () => {
    for (const id of ['page-1', 'page-2', 'page-3', 'page-4', 'page-5']) await (await kit.edge(kit.b, { instanceId: id })).close();
    const ids = (await listInstanceRegistrations(creds(kit.b), 2)).map((r) => r.id);
    expect(ids).toEqual(['page-1', 'page-2', 'page-3', 'page-4', 'page-5']);
  });

  it('prefers the connected registration when several share a connection id', () => {
    const regs = [
      { id: 'old', info: { connection_id: 'c', connected: false, last_seen: '2025-03-02T00:00:00.000Z' } },
      { id: 'live', info: { connection_id: 'c', connected: true, last_seen: '2025-03-01T00:00:00.000Z' } },
      { id: 'other', info: { connection_id: 'd', connected: true } },
    ];
    expect(selectInstanceId(regs, 'c')).toBe('live');
    expect(() => selectInstanceId(regs, 'nope')).toThrow(
      new ScriptError('no instance is registered for connection nope — has its edge authorizer connected to the relay yet?'),
    );
  });

  it('explains every error status in one line', async () => {
    const edge = await kit.edge(kit.a, { behaviour: 'error' });
    await expect(execRelayCommand(creds(kit.a), edge.instanceId, 'discovery')).rejects.toThrow(
      '502 edge_error: policy.cedar:3: unexpected token — the edge authorizer ran the command and reported this failure',
    );
    await expect(execRelayCommand(creds(kit.b), edge.instanceId, 'discovery')).rejects.toThrow(
      `404 instance_not_found: no instance with this id is registered for the tenant — instance ${edge.instanceId} is not registered for tenant ${kit.b.tenantId}`,
    );
    await expect(listInstanceRegistrations(creds(kit.a, 'wrong'))).rejects.toThrow(`401 unauthorized: missing or invalid tenant credentials — tenant ${kit.a.tenantId}`);
    await expect(listInstanceRegistrations({ ...creds(kit.a), relayUrl: 'http://127.0.0.1:1' })).rejects.toThrow(
      'cannot reach the relay at http://127.0.0.1:1',
    );
  });

  it('broadcasts to every edge of a tenant (npm run relay-exec -- <command> --all) and explains a refusal', async () => {
    const keys = await kit.store.tenants.create('broadcast tenant');
    const connection = await kit.store.tenants.addConnection(keys.tenantId, 'rbac');
    const tenant: TestTenant = { ...keys, connectionId: connection.connectionId, secret: connection.connectionSecret };
    const ok = await kit.edge(tenant, { instanceId: 'bc-ok' });
    await kit.edge(tenant, { instanceId: 'bc-failing', behaviour: 'error', errorCode: 'sync_failed' });
    await expect(broadcastRelayCommand(creds(tenant), 'sync_edge_directory')).resolves.toEqual({
      sent: 2,
      confirmed: 1,
      failed: [{ id: 'bc-failing', code: 'sync_failed' }],
      not_connected: 0,
    });
    await expect(broadcastRelayCommand(creds(tenant), 'discovery', { policyName: 'todo', staleOnly: true })).resolves.toEqual({ sent: 0, confirmed: 0, failed: [], not_connected: 0 });
    expect(ok.commands.map((c) => c.command)).toEqual(['sync_edge_directory']);
    await expect(broadcastRelayCommand(creds(tenant, 'wrong'), 'discovery')).rejects.toThrow(`401 unauthorized: missing or invalid tenant credentials — tenant ${tenant.tenantId}`);
  });
});
