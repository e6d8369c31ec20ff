import Database from 'better-sqlite3';
import { MAX_DISCONNECTED_PER_CONNECTION, openRegistrationStore } from '../../src/relay/registration-store';

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

describe('registration store', () => {
  let db: Database.Database;
  beforeEach(() => {
    db = new Database(':memory:');
  });
  afterEach(() => db.close());

  it('keeps at most the newest disconnected registrations of a connection, and every connected one', () => {
    const store = openRegistrationStore(db);
    const total = MAX_DISCONNECTED_PER_CONNECTION + 15;
    for (let i = 0; i < total; i += 1) {
      store.register(register(`edge-${String(i).padStart(3, '0')}`), 1000 + i);
      store.markDisconnected(key(`edge-${String(i).padStart(3, '0')}`), 1000 + i);
    }
    store.register(register('live-edge'), 5000);
    store.register(register('other-connection', 'conn-2'), 5000);
    store.markDisconnected(key('other-connection'), 5001);

    const ids = store.listForTenant('tenant-a').map((r) => r.instanceId);
    expect(ids).toContain('live-edge');
    expect(ids).toContain('other-connection');
    const kept = ids.filter((id) => id.startsWith('edge-'));
    expect(kept).toHaveLength(MAX_DISCONNECTED_PER_CONNECTION);
    // The oldest went first.
    expect(kept[0]).toBe(`edge-${String(total - MAX_DISCONNECTED_PER_CONNECTION).padStart(3, '0')}`);
  });

  it('keeps an instance id bound to the connection that registered it first, until released', () => {
    const store = openRegistrationStore(db);
    expect(store.register(register('edge-x'), 1)).toBe('registered');
    expect(store.register(register('edge-x', 'conn-intruder'), 2)).toBe('bound_to_other_connection');
    expect(store.get(key('edge-x'))).toMatchObject({ connectionId: 'conn-1', connectedAt: 1 });
    expect(store.register(register('edge-x'), 3)).toBe('registered'); // the same connection reconnects
    expect(store.release(key('edge-x'))).toBe(true);
    expect(store.release(key('edge-x'))).toBe(false);
    expect(store.register(register('edge-x', 'conn-new'), 4)).toBe('registered');
    expect(store.get(key('edge-x'))).toMatchObject({ connectionId: 'conn-new' });
  });

  it('gives every tenant its own instance ids', () => {
    const store = openRegistrationStore(db);
    expect(store.register(register('edge-x'), 1)).toBe('registered');
    expect(store.register(register('edge-x', 'conn-b', 'tenant-b'), 2)).toBe('registered');
    expect(store.get(key('edge-x'))).toMatchObject({ tenantId: 'tenant-a', connectionId: 'conn-1' });
    expect(store.get(key('edge-x', 'tenant-b'))).toMatchObject({ tenantId: 'tenant-b', connectionId: 'conn-b' });
    expect(store.listForTenant('tenant-b').map((r) => r.instanceId)).toEqual(['edge-x']);
  });

  it('pages a tenant\'s registrations in instance-id order', () => {
    const store = openRegistrationStore(db);
    for (const id of ['c', 'a', 'b', 'd']) store.register(register(id), 1);
    expect(store.listForTenant('tenant-a', { limit: 2 }).map((r) => r.instanceId)).toEqual(['a', 'b']);
    expect(store.listForTenant('tenant-a', { after: 'b', limit: 2 }).map((r) => r.instanceId)).toEqual(['c', 'd']);
    expect(store.listForTenant('tenant-a', { after: 'd', limit: 2 })).toEqual([]);
  });
});
