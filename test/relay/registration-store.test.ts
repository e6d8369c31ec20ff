import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { MAX_DISCONNECTED_PER_CONNECTION, openRegistrationStore, type RegistrationStore } from '../../src/relay/registration-store';
import { SQL_ENGINES } from '../helpers/sql-engines';

const status = { policy_name: 'rbac', policy_digest: null, directory_revision: 0 };
const register = (instanceId: string, connectionId = 'conn-1', tenantId = 'tenant-a') => ({
  instanceId,
  tenantId,
  connectionId,
  hostname: 'h',
  version: '1',
  status,
});
const key = (instanceId: string, tenantId = 'tenant-a') => ({ tenantId, instanceId });

describe.each(SQL_ENGINES)('registration store on $name', (engine) => {
  // The relay's table as the control plane's migrations create it.
  let dir: string;
  let cp: ControlPlaneStore;
  let store: RegistrationStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-registrations-'));
    cp = await openControlPlaneStore(await engine.location(dir));
    store = openRegistrationStore(await cp.openRegistrationDatabase({ busyTimeoutMs: 50 }));
  });
  afterEach(async () => {
    await cp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps at most the newest disconnected registrations of a connection, and every connected one', async () => {
    const total = MAX_DISCONNECTED_PER_CONNECTION + 15;
    for (let i = 0; i < total; i += 1) {
      await store.register(register(`edge-${String(i).padStart(3, '0')}`), 1000 + i);
      await store.markDisconnected(key(`edge-${String(i).padStart(3, '0')}`), 1000 + i);
    }
    await store.register(register('live-edge'), 5000);
    await store.register(register('other-connection', 'conn-2'), 5000);
    await store.markDisconnected(key('other-connection'), 5001);

    const ids = (await store.listForTenant('tenant-a')).map((r) => r.instanceId);
    expect(ids).toContain('live-edge');
    expect(ids).toContain('other-connection');
    const kept = ids.filter((id) => id.startsWith('edge-'));
    expect(kept).toHaveLength(MAX_DISCONNECTED_PER_CONNECTION);
    // The oldest went first.
    expect(kept[0]).toBe(`edge-${String(total - MAX_DISCONNECTED_PER_CONNECTION).padStart(3, '0')}`);
  });

  it('keeps an instance id bound to the connection that registered it first, until released', async () => {
    expect(await store.register(register('edge-x'), 1)).toBe('registered');
    expect(await store.register(register('edge-x', 'conn-intruder'), 2)).toBe('bound_to_other_connection');
    expect(await store.get(key('edge-x'))).toMatchObject({ connectionId: 'conn-1', connectedAt: 1 });
    expect(await store.register(register('edge-x'), 3)).toBe('registered'); // the same connection reconnects
    expect(await store.release(key('edge-x'))).toBe(true);
    expect(await store.release(key('edge-x'))).toBe(false);
    expect(await store.register(register('edge-x', 'conn-new'), 4)).toBe('registered');
    expect(await store.get(key('edge-x'))).toMatchObject({ connectionId: 'conn-new' });
  });

  it("moves last_seen of several of a tenant's instances in one statement, and of no other tenant's", async () => {
    for (const id of ['e1', 'e2', 'e3']) await store.register(register(id), 1000);
    await store.register(register('e1', 'conn-b', 'tenant-b'), 1000);
    await store.touchMany('tenant-a', ['e1', 'e3'], 2000);
    const seen = (await store.listForTenant('tenant-a')).map((r) => [r.instanceId, r.lastSeen]);
    expect(seen).toEqual([
      ['e1', 2000],
      ['e2', 1000],
      ['e3', 2000],
    ]);
    expect((await store.get(key('e1', 'tenant-b')))?.lastSeen).toBe(1000);
  });

  it('gives every tenant its own instance ids', async () => {
    expect(await store.register(register('edge-x'), 1)).toBe('registered');
    expect(await store.register(register('edge-x', 'conn-b', 'tenant-b'), 2)).toBe('registered');
    expect(await store.get(key('edge-x'))).toMatchObject({ tenantId: 'tenant-a', connectionId: 'conn-1' });
    expect(await store.get(key('edge-x', 'tenant-b'))).toMatchObject({ tenantId: 'tenant-b', connectionId: 'conn-b' });
    expect((await store.listForTenant('tenant-b')).map((r) => r.instanceId)).toEqual(['edge-x']);
  });

  it('pages a tenant\'s registrations in instance-id order', async () => {
    for (const id of ['c', 'a', 'b', 'd']) await store.register(register(id), 1);
    expect((await store.listForTenant('tenant-a', { limit: 2 })).map((r) => r.instanceId)).toEqual(['a', 'b']);
    expect((await store.listForTenant('tenant-a', { after: 'b', limit: 2 })).map((r) => r.instanceId)).toEqual(['c', 'd']);
    expect(await store.listForTenant('tenant-a', { after: 'd', limit: 2 })).toEqual([]);
  });

  it('pages in the byte order of instance ids, whatever the database sorts text by', async () => {
    const ids = ['edge_2', 'Edge-3', 'edge-1', 'edge.4', 'EDGE5', 'edge10', 'edge9', 'a b', 'ab'];
    for (const id of ids) await store.register(register(id), 1);
    const sorted = [...ids].sort();
    expect((await store.listForTenant('tenant-a')).map((r) => r.instanceId)).toEqual(sorted);
    const walked: string[] = [];
    for (let after = ''; ; ) {
      const page = (await store.listForTenant('tenant-a', { after, limit: 2 })).map((r) => r.instanceId);
      if (page.length === 0) break;
      walked.push(...page);
      after = page[page.length - 1]!;
    }
    expect(walked).toEqual(sorted);
  });
});
