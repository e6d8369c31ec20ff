import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUserStore } from '../../src/idp';

describe('users.json damaged', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-users-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['empty (a write cut by a power loss)', '', 'empty'],
    ['not JSON', '{"version":1,"users":[', 'not valid JSON (ends too early)'],
    ['not a users file', '{"version":2}', 'not a valid users file'],
  ])('stops the IdP when the file is %s, naming it and the way out, and leaves it alone', async (_what, content, reason) => {
    const file = join(dir, 'users.json');
    writeFileSync(file, content);
    await expect(openUserStore(file, [], 'unused')).rejects.toThrow(
      `${file}: ${reason}. It holds the users' password hashes: restore it, or delete it and start again ` +
        "to derive the seeded users' hashes anew from the demo password.",
    );
    expect(readFileSync(file, 'utf8')).toBe(content);
  });
});

describe('the seeded users\' hashes', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-users-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const seed = [
    { id: 'u1', email: 'one@example.com', name: 'One' },
    { id: 'u2', email: 'two@example.com', name: 'Two' },
  ] as unknown as Parameters<typeof openUserStore>[1];

  it('are derived at the first password check, not at open, each with its own salt, and kept', async () => {
    const file = join(dir, 'users.json');
    const store = await openUserStore(file, seed, 'demo-pass');
    expect(existsSync(file)).toBe(false); // nothing derived or written yet
    expect(store.list().map((u) => u.email)).toEqual(['one@example.com', 'two@example.com']);
    // An unknown user first: the derivation is the same whoever is tried.
    expect(await store.authenticate('nobody@example.com', 'demo-pass')).toBeUndefined();
    const written = JSON.parse(readFileSync(file, 'utf8')) as { users: { id: string; password_hash: string }[] };
    expect(written.users.map((u) => u.id)).toEqual(['u1', 'u2']);
    expect(new Set(written.users.map((u) => u.password_hash)).size).toBe(2);
    expect(await store.authenticate('TWO@example.com', 'demo-pass')).toEqual({ id: 'u2', email: 'two@example.com', name: 'Two' });
    expect(await store.authenticate('one@example.com', 'wrong')).toBeUndefined();

    const again = await openUserStore(file, seed, 'another-pass');
    expect(await again.authenticate('one@example.com', 'demo-pass')).toEqual({ id: 'u1', email: 'one@example.com', name: 'One' });
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(written, null, 2)}\n`);
  });

  it('are derived again at the next check when writing them failed', async () => {
    const blocker = join(dir, 'idp');
    const file = join(blocker, 'users.json');
    const store = await openUserStore(file, seed, 'demo-pass');
    writeFileSync(blocker, ''); // a file where the folder must be: the write fails
    await expect(store.authenticate('one@example.com', 'demo-pass')).rejects.toThrow();
    rmSync(blocker);
    expect(await store.authenticate('one@example.com', 'demo-pass')).toEqual({ id: 'u1', email: 'one@example.com', name: 'One' });
    expect(existsSync(file)).toBe(true);
  });

  it('are written at the next check when the seed gained a user and writing its hash failed', async () => {
    const folder = join(dir, 'idp');
    const file = join(folder, 'users.json');
    await (await openUserStore(file, seed.slice(0, 1), 'demo-pass')).authenticate('one@example.com', 'demo-pass'); // users.json holds u1
    const store = await openUserStore(file, seed, 'demo-pass'); // the seed now has u2 too
    renameSync(folder, `${folder}.away`);
    writeFileSync(folder, ''); // a file where the folder must be: the write fails
    await expect(store.authenticate('two@example.com', 'demo-pass')).rejects.toThrow();
    rmSync(folder);
    renameSync(`${folder}.away`, folder);
    expect(await store.authenticate('two@example.com', 'demo-pass')).toEqual({ id: 'u2', email: 'two@example.com', name: 'Two' });
    const written = JSON.parse(readFileSync(file, 'utf8')) as { users: { id: string }[] };
    expect(written.users.map((u) => u.id)).toEqual(['u1', 'u2']);
  });
});
