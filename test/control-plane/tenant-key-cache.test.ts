/**
 * The tenant key check keeps stored hashes between calls on SQLite (src/control-plane/tenant-key-cache.ts)
 * and must still refuse a rotated key on the very next check, wherever the rotation happened:
 * through this store, through another handle on the file, through the tenants CLI in a process
 * of its own. The first block drives the cache with a scripted source to pin down when it reads.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTenant, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { hashSecret } from '../../src/control-plane/secrets';
import { cachedTenantKeyCheck, type TenantKeySource } from '../../src/control-plane/tenant-key-cache';
import { compiled } from '../helpers/compiled';

/** A source whose stamp the test moves, counting hash reads; `hold` makes the next read wait until released. */
function scriptedSource(keys: Record<string, string>) {
  let stamp = 0;
  let gate: Promise<void> | undefined;
  const reads: string[] = [];
  const source: TenantKeySource = {
    changeStamp: () => Promise.resolve(String(stamp)),
    async keyHash(tenantId, kind) {
      reads.push(`${kind}:${tenantId}`);
      const key = keys[`${kind}:${tenantId}`];
      const hash = key === undefined ? undefined : hashSecret(key);
      const held = gate;
      gate = undefined;
      if (held) await held;
      return hash;
    },
  };
  return {
    source,
    reads,
    keys,
    change: () => void (stamp += 1),
    hold(): () => void {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return release;
    },
  };
}

describe('cachedTenantKeyCheck', () => {
  it('reads a hash once while the stamp stands, and again once it moved', async () => {
    const s = scriptedSource({ 'discovery:t1': 'dk_one', 'admin:t1': 'ak_one' });
    const verify = cachedTenantKeyCheck(s.source);
    expect(await verify('t1', 'discovery', 'dk_one')).toBe(true);
    expect(await verify('t1', 'discovery', 'wrong')).toBe(false);
    expect(await verify('t1', 'discovery', ['wrong', 'dk_one'])).toBe(true);
    // Kinds are kept apart: a discovery key is never an admin key.
    expect(await verify('t1', 'admin', 'dk_one')).toBe(false);
    expect(s.reads).toEqual(['discovery:t1', 'admin:t1']);

    s.keys['discovery:t1'] = 'dk_two';
    s.change();
    expect(await verify('t1', 'discovery', 'dk_one')).toBe(false);
    expect(await verify('t1', 'discovery', 'dk_two')).toBe(true);
    expect(s.reads).toEqual(['discovery:t1', 'admin:t1', 'discovery:t1']);
  });

  it('never keeps an unknown tenant, so made-up ids neither fill nor flush the cache', async () => {
    const s = scriptedSource({ 'discovery:t1': 'dk_one' });
    const verify = cachedTenantKeyCheck(s.source, 2);
    await verify('t1', 'discovery', 'dk_one');
    for (let i = 0; i < 5; i += 1) expect(await verify(`junk-${i}`, 'discovery', 'dk_one')).toBe(false);
    expect(await verify('no-such', 'discovery', 'dk_one')).toBe(false);
    expect(await verify('no-such', 'discovery', 'dk_one')).toBe(false);
    expect(await verify('t1', 'discovery', 'dk_one')).toBe(true);
    expect(s.reads.filter((r) => r === 'discovery:t1')).toHaveLength(1);
    expect(s.reads.filter((r) => r === 'discovery:no-such')).toHaveLength(2);
  });

  it('starts over once it holds its maximum', async () => {
    const s = scriptedSource({ 'discovery:a': 'ka', 'discovery:b': 'kb', 'discovery:c': 'kc' });
    const verify = cachedTenantKeyCheck(s.source, 2);
    for (const t of ['a', 'b', 'c', 'a', 'b']) await verify(t, 'discovery', `k${t}`);
    // a and b kept; c arrived at the maximum and started over; a and b read again.
    expect(s.reads).toEqual(['discovery:a', 'discovery:b', 'discovery:c', 'discovery:a', 'discovery:b']);
  });

  it('does not keep a hash read under an older stamp than another check has seen since', async () => {
    const s = scriptedSource({ 'discovery:t1': 'dk_one' });
    const verify = cachedTenantKeyCheck(s.source);
    // A reads the old hash and is held; the key rotates; B sees the new stamp and the new key
    // and keeps it; only then does A go on.
    const release = s.hold();
    const a = verify('t1', 'discovery', 'dk_one');
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.reads).toEqual(['discovery:t1']);
    s.keys['discovery:t1'] = 'dk_two';
    s.change();
    expect(await verify('t1', 'discovery', 'dk_two')).toBe(true);
    release();
    // A answers from what it read when it started, as the uncached check did.
    expect(await a).toBe(true);
    // A's old hash must not have been kept under B's stamp: the old key is refused now.
    expect(await verify('t1', 'discovery', 'dk_one')).toBe(false);
    expect(await verify('t1', 'discovery', 'dk_two')).toBe(true);
  });

  it('fails the check when the stamp or the hash cannot be read', async () => {
    const s = scriptedSource({ 'discovery:t1': 'dk_one' });
    const down = new Error('disk I/O error');
    await expect(cachedTenantKeyCheck({ ...s.source, changeStamp: () => Promise.reject(down) })('t1', 'discovery', 'dk_one')).rejects.toBe(down);
    await expect(cachedTenantKeyCheck({ ...s.source, keyHash: () => Promise.reject(down) })('t1', 'discovery', 'dk_one')).rejects.toBe(down);
  });
});

describe('the SQLite store refuses a rotated key on the next check', () => {
  let dir: string;
  let file: string;
  let store: ControlPlaneStore;
  let tenantId: string;
  let key: string;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-key-cache-'));
    file = join(dir, 'control-plane.db');
    store = await openControlPlaneStore(file);
    ({ tenantId, discoveryApiKey: key } = await createTenant(store, { name: 'acme', directory: { roles: [], users: [], resources: [] } }));
    // Kept: the next checks are answered from memory until something changes.
    expect(await store.verifyTenantKey(tenantId, 'discovery', key)).toBe(true);
    expect(await store.verifyTenantKey(tenantId, 'discovery', key)).toBe(true);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rotated through the same store', async () => {
    const rotated = await store.tenants.rotateKey(tenantId, 'discovery');
    expect(await store.verifyTenantKey(tenantId, 'discovery', key)).toBe(false);
    expect(await store.verifyTenantKey(tenantId, 'discovery', rotated)).toBe(true);
  });

  it('rotated through another handle on the file (another store in this process)', async () => {
    const other = await openControlPlaneStore(file);
    const rotated = await other.tenants.rotateKey(tenantId, 'discovery');
    await other.close();
    expect(await store.verifyTenantKey(tenantId, 'discovery', key)).toBe(false);
    expect(await store.verifyTenantKey(tenantId, 'discovery', rotated)).toBe(true);
  });

  it('rotated by `npm run tenants -- rotate-key` in a process of its own', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, OUTPOST_DATA_DIR: dir, LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    const { stdout } = await promisify(execFile)(process.execPath, [compiled('scripts/tenants.ts'), 'rotate-key', tenantId, 'discovery'], { env });
    const rotated = /^discovery_api_key=(\S+)$/m.exec(stdout)?.[1];
    expect(rotated).toMatch(/^dk_/);
    expect(await store.verifyTenantKey(tenantId, 'discovery', key)).toBe(false);
    expect(await store.verifyTenantKey(tenantId, 'discovery', rotated!)).toBe(true);
  }, 30_000);
});
