import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireFileLock, withFileLock } from '../../src/files';

describe('withFileLock', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-lock-'));
    lock = join(dir, 'keys.json.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('holds the pid while running and removes the file afterwards, also on failure', async () => {
    await expect(withFileLock(lock, () => readFileSync(lock, 'utf8'))).resolves.toBe(`${process.pid}\n`);
    expect(existsSync(lock)).toBe(false);
    await expect(withFileLock(lock, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(lock)).toBe(false);
  });

  it('makes a second holder wait until the first is done', async () => {
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = withFileLock(lock, async () => {
      order.push('first in');
      await gate;
      order.push('first out');
    }, { pollMs: 1 });
    const second = withFileLock(lock, () => void order.push('second in'), { pollMs: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['first in']);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });

  it('fails loudly, naming the file and the holder, when the lock stays held', async () => {
    writeFileSync(lock, `${process.ppid}\n`); // a live holder: the process that started this one
    await expect(withFileLock(lock, () => 'ran', { timeoutMs: 30, pollMs: 5 })).rejects.toThrow(
      `${lock}: still held by process ${process.ppid} after 0.03 s; if that process is not running, delete the lock file and try again`,
    );
    expect(readFileSync(lock, 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('clears a lock naming this very process that this process does not hold (PID 1 in a restarted container)', async () => {
    writeFileSync(lock, `${process.pid}\n`);
    await expect(withFileLock(lock, () => 'ran', { timeoutMs: 1000, pollMs: 1 })).resolves.toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('clears a stale lock left by a process that no longer runs', async () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(lock, `${dead}\n`);
    await expect(withFileLock(lock, () => 'ran', { timeoutMs: 1000, pollMs: 1 })).resolves.toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });
});

describe('acquireFileLock', () => {
  let dir: string;
  let lock: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-held-lock-'));
    lock = join(dir, 'edge.lock');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second holder at once, naming the live holder, until released', () => {
    const held = acquireFileLock(lock);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    expect(() => acquireFileLock(lock)).toThrow(`${lock}: held by process ${process.pid}, which is still running`);
    held.release();
    held.release(); // idempotent
    expect(existsSync(lock)).toBe(false);
    acquireFileLock(lock).release();
  });

  it('takes over a lock naming this very process that this process does not hold (PID 1 in a restarted container)', () => {
    writeFileSync(lock, `${process.pid}\n`);
    const held = acquireFileLock(lock);
    expect(() => acquireFileLock(lock)).toThrow(`${lock}: held by process ${process.pid}, which is still running`);
    held.release();
  });

  it('takes over a lock whose holder died', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    writeFileSync(lock, `${dead}\n`);
    const held = acquireFileLock(lock);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    held.release();
  });
});
