import { randomBytes } from 'node:crypto';
import { hashPassword, openUserStore, verifyPassword } from '../../src/idp';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('password hashing', () => {
  it('hashes with scrypt and a fresh salt, and verifies only the right password', async () => {
    const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct');
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('', a)).toBe(false);
  });

  it('never matches a malformed stored hash', async () => {
    const good = await hashPassword('pw');
    for (const bad of ['', 'pw', good.replace('scrypt', 'bcrypt'), good.replace('$32768$', '$-1$'), good.slice(0, -4)]) {
      expect(await verifyPassword('pw', bad)).toBe(false);
    }
  });
});

describe('user store timing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-users-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('spends the same scrypt work on an unknown user as on a wrong password', async () => {
    const user = { id: 'u1', email: 'u1@x.test', name: 'U One', roles: [] };
    const store = await openUserStore(join(dir, 'users.json'), [user], 'pw-123456');
    expect(await store.authenticate('U1@x.test', 'pw-123456')).toEqual({ id: 'u1', email: 'u1@x.test', name: 'U One' });
    // Interleaved samples, so load from other processes hits both sides alike.
    let wrong = 0n;
    let unknown = 0n;
    for (let i = 0; i < 4; i += 1) {
      for (const [username, add] of [['u1@x.test', (n: bigint) => (wrong += n)], ['nobody@x.test', (n: bigint) => (unknown += n)]] as const) {
        const started = process.hrtime.bigint();
        expect(await store.authenticate(username, randomBytes(8).toString('hex'))).toBeUndefined();
        add(process.hrtime.bigint() - started);
      }
    }
    // Both run a full scrypt derivation; a skipped derivation would be ~1000x faster.
    const ratio = Number(unknown) / Number(wrong);
    expect(ratio).toBeGreaterThan(0.33);
    expect(ratio).toBeLessThan(3);
  });
});
