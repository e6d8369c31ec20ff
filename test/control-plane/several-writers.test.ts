import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTenant, MembershipError, openControlPlaneStore, seedControlPlane, type ControlPlaneStore, type PostgresLocation } from '../../src/control-plane';
import { MAX_IMAGES_PER_TENANT } from '../../src/control-plane/policy-image-repository';
import { SIGNING_KEY_LIMITS } from '../../src/policy';
import { POSTGRES_ENGINE } from '../helpers/sql-engines';
import { policiesDir, seedDirectory, URLS } from './fixture';
import { createSigningKeyRepository } from '../../src/signing-keys/signing-key-repository';

// PostgreSQL only: several nodes share one database, each with its own pool, and their
// transactions run concurrently at READ COMMITTED. (Several SQLite handles in one process
// cannot interleave transactions: better-sqlite3 waits for a lock on the event loop.)
describe('several control-plane nodes writing one PostgreSQL database', () => {
  let dir: string;
  let at: PostgresLocation;
  let nodes: ControlPlaneStore[];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-writers-'));
    at = (await POSTGRES_ENGINE.location(dir)) as PostgresLocation;
    // Three nodes, opened together as a rolling start would: they migrate once, under the lock.
    nodes = await Promise.all([1, 2, 3].map(() => openControlPlaneStore({ ...at, poolSize: 4 })));
  });
  afterEach(async () => {
    await Promise.all(nodes.map((n) => n.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  const node = (i: number) => nodes[i % nodes.length]!;
  const newTenant = async (owner?: string) =>
    (await createTenant(node(0), { name: 'acme', directory: { roles: seedDirectory.roles, users: [], resources: [] }, ...(owner ? { owner } : {}) }))
      .tenantId;

  it('seeds exactly one demo tenant when every node starts on the empty database at once', async () => {
    const seeded = await Promise.all(
      nodes.map((n, i) => seedControlPlane(n, { policiesDir, directorySeed: seedDirectory, dataDir: join(dir, `node-${i}`), urls: URLS })),
    );
    expect(seeded.filter((d) => d !== undefined)).toHaveLength(1);
    const tenants = await node(1).tenants.list();
    expect(tenants.filter((t) => t.name === 'demo')).toHaveLength(1);
    // The demo users' personal accounts were made once too.
    expect(tenants.filter((t) => t.kind === 'personal')).toHaveLength(seedDirectory.users.length);
  });

  it('gives 60 concurrent directory changes over three nodes the revisions 2..61, each once, losing none', async () => {
    const tenantId = await newTenant();
    const applied = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        node(i).directory.change(tenantId, { op: 'user.put', user: { id: `u${i}`, email: `u${i}@x.test`, name: `U${i}`, roles: [] } }),
      ),
    );
    const revisions = Array.from({ length: 60 }, (_, i) => i + 2);
    expect(applied.map((c) => c.rev).sort((a, b) => a - b)).toEqual(revisions);
    const snapshot = (await node(2).directory.snapshot(tenantId))!;
    expect(snapshot.revision).toBe(61);
    expect(snapshot.users.map((u) => u.id).sort()).toEqual(Array.from({ length: 60 }, (_, i) => `u${i}`).sort());
    const log = await node(1).directory.changesSince(tenantId, 1);
    expect(log.kind === 'changes' && log.changes.map((c) => c.rev)).toEqual(revisions);
    expect(log.kind === 'changes' && new Set(log.changes.map((c) => (c.op === 'user.put' ? c.user.id : ''))).size).toBe(60);
  });

  it(`keeps a tenant within ${MAX_IMAGES_PER_TENANT} images under concurrent pushes from three nodes`, async () => {
    const tenantId = await newTenant();
    // Every push has its own policy name, so every stored image stays tagged and none can be evicted.
    const total = MAX_IMAGES_PER_TENANT + 10;
    const results = await Promise.all(
      Array.from({ length: total }, (_, i) =>
        node(i).images.push(tenantId, { name: `p${i}`, digest: `sha256:${String(i).padStart(64, '0')}`, files: {} } as never),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(MAX_IMAGES_PER_TENANT);
    expect(results.filter((r) => r.quotaExceeded)).toHaveLength(total - MAX_IMAGES_PER_TENANT);
    expect(await node(0).images.latest(tenantId)).toHaveLength(MAX_IMAGES_PER_TENANT);
  });

  it(`keeps a tenant within ${SIGNING_KEY_LIMITS.maxKeys} signing keys under concurrent adds from three nodes`, async () => {
    const tenantId = await newTenant();
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43) } as const;
    const total = SIGNING_KEY_LIMITS.maxKeys + 5;
    const results = await Promise.all(Array.from({ length: total }, (_, i) => createSigningKeyRepository(node(i).sql).add(tenantId, `kid-${i}`, jwk)));
    expect(results.filter((r) => r.created)).toHaveLength(SIGNING_KEY_LIMITS.maxKeys);
    expect(await createSigningKeyRepository(node(1).sql).list(tenantId)).toHaveLength(SIGNING_KEY_LIMITS.maxKeys);
  });

  it('never leaves an organization without an owner when two nodes remove its two owners at once', async () => {
    for (let round = 0; round < 10; round += 1) {
      const org = await newTenant('rick');
      await node(0).members.setMember(org, 'morty', 'owner');
      const outcomes = await Promise.allSettled([
        node(1).members.removeMember(org, 'rick'),
        node(2).members.setMember(org, 'morty', 'viewer'),
      ]);
      const refused = outcomes.filter((o) => o.status === 'rejected');
      expect(refused).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(MembershipError);
      const owners = (await node(0).members.members(org)).filter((m) => m.role === 'owner');
      expect(owners).toHaveLength(1);
    }
  });
});
