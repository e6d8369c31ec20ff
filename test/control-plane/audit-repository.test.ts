import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { controlPlaneDbPath, createTenant, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { AUDIT_PAGE_SIZE, MAX_AUDIT_ENTRIES_PER_TENANT } from '../../src/control-plane/audit-repository';
import { seedDirectory } from './fixture';

describe('audit repository', () => {
  let dir: string;
  let store: ControlPlaneStore;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-cp-audit-'));
    store = await openControlPlaneStore(controlPlaneDbPath(dir), { now: () => 1_700_000_000_000 });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const tenant = async () => (await createTenant(store, { name: 't', directory: { roles: seedDirectory.roles, users: [], resources: [] } })).tenantId;
  const entry = (action: string) => ({ actor: 'rick', action, target: null, outcome: 'ok' });

  it("lists a tenant's own entries, newest first, a page at a time", async () => {
    const a = await tenant();
    const b = await tenant();
    await store.audit.record(a, entry('first'));
    await store.audit.record(b, entry('other tenant'));
    await store.audit.record(a, { actor: 'morty', action: 'second', target: 'x', outcome: 'edge_error' });
    const listed = await store.audit.list(a);
    expect(listed).toEqual([
      { id: expect.any(Number), actor: 'morty', action: 'second', target: 'x', outcome: 'edge_error', at: 1_700_000_000_000 },
      { id: expect.any(Number), actor: 'rick', action: 'first', target: null, outcome: 'ok', at: 1_700_000_000_000 },
    ]);
    expect((await store.audit.list(a, listed[0]!.id)).map((e) => e.action)).toEqual(['first']);
    for (let i = 0; i < AUDIT_PAGE_SIZE; i += 1) await store.audit.record(a, entry(`more ${i}`));
    expect(await store.audit.list(a)).toHaveLength(AUDIT_PAGE_SIZE);
  });

  it(`keeps the newest ${MAX_AUDIT_ENTRIES_PER_TENANT} entries of a tenant, dropping the oldest`, async () => {
    const a = await tenant();
    const b = await tenant();
    await store.audit.record(b, entry('kept: another tenant'));
    const raw = new Database(controlPlaneDbPath(dir));
    const insert = raw.prepare("INSERT INTO audit_log (tenant_id, actor, action, target, outcome, at) VALUES (?, 'x', ?, NULL, 'ok', 0)");
    raw.transaction(() => {
      for (let i = 0; i < MAX_AUDIT_ENTRIES_PER_TENANT; i += 1) insert.run(a, `old ${i}`);
    })();
    await store.audit.record(a, entry('newest'));
    const count = raw.prepare('SELECT count(*) FROM audit_log WHERE tenant_id = ?').pluck();
    expect(count.get(a)).toBe(MAX_AUDIT_ENTRIES_PER_TENANT);
    expect(raw.prepare("SELECT count(*) FROM audit_log WHERE tenant_id = ? AND action = 'old 0'").pluck().get(a)).toBe(0);
    expect((await store.audit.list(a))[0]!.action).toBe('newest');
    expect(count.get(b)).toBe(1);
    raw.close();
  });
});
