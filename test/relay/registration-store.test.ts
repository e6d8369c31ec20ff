import Database from 'better-sqlite3';
import { MAX_DISCONNECTED_PER_CONNECTION, openRegistrationStore } from '../../src/relay/registration-store';

const status = { policy_name: 'rbac', policy_digest: null, directory_revision: 0 };
const register = (instanceId: string, connectionId = 'conn-1') => ({
  instanceId,
  tenantId: 'tenant-a',
  connectionId,
  hostname: 'h',
  version: '1',
  status,
});

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
      store.upsertConnected(register(`edge-${String(i).padStart(3, '0')}`), 1000 + i);
      store.markDisconnected(`edge-${String(i).padStart(3, '0')}`, 1000 + i);
    }
    store.upsertConnected(register('live-edge'), 5000);
    store.upsertConnected(register('other-connection', 'conn-2'), 5000);
    store.markDisconnected('other-connection', 5001);

    const ids = store.listForTenant('tenant-a').map((r) => r.instanceId);
    expect(ids).toContain('live-edge');
    expect(ids).toContain('other-connection');
    const kept = ids.filter((id) => id.startsWith('edge-'));
    expect(kept).toHaveLength(MAX_DISCONNECTED_PER_CONNECTION);
    // The oldest went first.
    expect(kept[0]).toBe(`edge-${String(total - MAX_DISCONNECTED_PER_CONNECTION).padStart(3, '0')}`);
  });

  it('keeps an instance id bound to the tenant that registered it first', () => {
    const store = openRegistrationStore(db);
    store.upsertConnected(register('edge-x'), 1);
    store.upsertConnected({ ...register('edge-x', 'conn-b'), tenantId: 'tenant-b' }, 2);
    expect(store.get('edge-x')).toMatchObject({ tenantId: 'tenant-a', connectionId: 'conn-1' });
  });
});
