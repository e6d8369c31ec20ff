import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTenant, openControlPlaneStore, type ControlPlaneLocation, type ControlPlaneStore } from '../../src/control-plane';
import { ADMIN_KEY_ACTOR, AUDIT_PAGE_SIZE, CLI_ACTOR, MAX_AUDIT_ENTRIES_PER_TENANT, recordAdminKeyAudit, recordCliAudit } from '../../src/control-plane/audit-repository';
import { openLocation, SQL_ENGINES } from '../helpers/sql-engines';
import { seedDirectory } from './fixture';

describe.each(SQL_ENGINES)('audit repository on $name', (engine) => {
  let dir: string;
  let at: ControlPlaneLocation;
  let store: ControlPlaneStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-audit-'));
    at = await engine.location(dir);
    store = await openControlPlaneStore(at, { now: () => 1_700_000_000_000 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tenant = async () => (await createTenant(store, { name: 't', directory: { roles: seedDirectory.roles, users: [], resources: [] } })).tenantId;
  const entry = (action: string) => ({ actor: 'rick', actorKind: 'user' as const, action, target: null, outcome: 'ok' });

  it("lists a tenant's own entries, newest first, a page at a time", async () => {
    const a = await tenant();
    const b = await tenant();
    await store.audit.record(a, entry('first'));
    await store.audit.record(b, entry('other tenant'));
    await store.audit.record(a, { actor: 'morty', actorKind: 'user', action: 'second', target: 'x', outcome: 'edge_error' });
    await recordAdminKeyAudit(store.audit, a, 'signing_key.remove', 'kid-1');
    await recordCliAudit(store.audit, a, 'connection.create', 'c-1');
    const listed = await store.audit.list(a);
    expect(listed).toEqual([
      { id: expect.any(Number), actor: CLI_ACTOR, actorKind: 'cli', action: 'connection.create', target: 'c-1', outcome: 'ok', at: 1_700_000_000_000 },
      { id: expect.any(Number), actor: ADMIN_KEY_ACTOR, actorKind: 'admin_key', action: 'signing_key.remove', target: 'kid-1', outcome: 'ok', at: 1_700_000_000_000 },
      { id: expect.any(Number), actor: 'morty', actorKind: 'user', action: 'second', target: 'x', outcome: 'edge_error', at: 1_700_000_000_000 },
      { id: expect.any(Number), actor: 'rick', actorKind: 'user', action: 'first', target: null, outcome: 'ok', at: 1_700_000_000_000 },
    ]);
    expect((await store.audit.list(a, listed[2]!.id)).map((e) => e.action)).toEqual(['first']);
    for (let i = 0; i < AUDIT_PAGE_SIZE; i += 1) await store.audit.record(a, entry(`more ${i}`));
    expect(await store.audit.list(a)).toHaveLength(AUDIT_PAGE_SIZE);
  });

  it(`keeps the newest ${MAX_AUDIT_ENTRIES_PER_TENANT} entries of a tenant, dropping the oldest`, async () => {
    const a = await tenant();
    const b = await tenant();
    await store.audit.record(b, entry('kept: another tenant'));
    const raw = await openLocation(at);
    // One statement both engines accept: entries 'old 0' … in order of their ids.
    await raw.run(
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
       INSERT INTO audit_log (tenant_id, actor, action, target, outcome, at) SELECT ?, 'x', 'old ' || i, NULL, 'ok', 0 FROM n ORDER BY i`,
      [MAX_AUDIT_ENTRIES_PER_TENANT, a],
    );
    await store.audit.record(a, entry('newest'));
    const count = async (tenantId: string, action?: string) =>
      Number((await raw.get<{ n: number }>('SELECT count(*) AS n FROM audit_log WHERE tenant_id = ? AND (action = ? OR ? = 1)', [tenantId, action ?? '', action === undefined ? 1 : 0]))!.n);
    expect(await count(a)).toBe(MAX_AUDIT_ENTRIES_PER_TENANT);
    expect(await count(a, 'old 0')).toBe(0);
    expect((await store.audit.list(a))[0]!.action).toBe('newest');
    expect(await count(b)).toBe(1);
    await raw.close();
  });
});
