import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { acquireDirectoryLock, DirectoryLockedError } from '../../src/files';
import { compiled } from '../helpers/compiled';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'outpost-dir-lock-'));
  dir = join(root, 'data');
  mkdirSync(dir);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** The error a promise rejects with. */
const refusal = (promise: Promise<unknown>) => promise.then(() => new Error('the lock was taken twice'), (err: unknown) => err as Error);

describe('acquireDirectoryLock (Linux: an abstract socket)', () => {
  it('refuses a second holder at once, naming the directory and the lock, until released', async () => {
    const held = await acquireDirectoryLock(dir, 'edge');
    const err = await refusal(acquireDirectoryLock(dir, 'edge'));
    expect(err).toBeInstanceOf(DirectoryLockedError);
    expect(err.message).toMatch(new RegExp(`^${dir}: lock @outpost-edge-[0-9a-f]{64} is held by a running process$`));
    held.release();
    held.release(); // idempotent
    (await acquireDirectoryLock(dir, 'edge')).release();
  });

  it('is one lock for one directory however it is named: a symlink, a relative path', async () => {
    symlinkSync(dir, join(root, 'link'));
    const held = await acquireDirectoryLock(dir, 'edge');
    expect(await refusal(acquireDirectoryLock(join(root, 'link'), 'edge'))).toBeInstanceOf(DirectoryLockedError);
    expect(await refusal(acquireDirectoryLock(relative(process.cwd(), dir), 'edge'))).toBeInstanceOf(DirectoryLockedError);
    // Another purpose or another directory is another lock.
    const other = await acquireDirectoryLock(dir, 'other');
    const sibling = await acquireDirectoryLock(root, 'edge');
    for (const lock of [held, other, sibling]) lock.release();
  });

  it('creates the directory it locks and leaves no file in it', async () => {
    const fresh = join(root, 'fresh', 'edge');
    const held = await acquireDirectoryLock(fresh, 'edge');
    expect(readdirSync(fresh)).toEqual([]);
    held.release();
  });

  it('never keeps its process alive: a process that only holds the lock exits by itself', () => {
    const script = `require(${JSON.stringify(compiled('src/files/index.ts'))}).acquireDirectoryLock(${JSON.stringify(dir)}, 'edge').then(() => console.log('held'))`;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect({ status: child.status, stdout: child.stdout, signal: child.signal }).toEqual({ status: 0, stdout: 'held\n', signal: null });
  });
});
