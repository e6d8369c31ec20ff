import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** How long to wait for another holder before failing. Default 10 s. */
  readonly timeoutMs?: number;
  /** How often to look again while another holder has the lock. Default 25 ms. */
  readonly pollMs?: number;
}

/** The pid written in a lock file; undefined while the holder is still writing it, or if it vanished. */
function lockHolder(lockFile: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0); // signal 0: existence check only
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, owned by someone else
  }
}

/**
 * The lock files this process holds right now. A file naming this process's pid that is not
 * among them was left by an earlier process that had the same pid: in a container every
 * restart runs the service as PID 1, so the stale pid is always "alive" — it is us.
 */
const heldHere = new Set<string>();

/** Whether the lock's holder is gone: its pid no longer runs, or it is our pid but not our lock. */
function isStale(lockFile: string, holder: number): boolean {
  return holder === process.pid ? !heldHere.has(resolve(lockFile)) : !isAlive(holder);
}

/** One attempt: create the lock file exclusively (O_EXCL), or clear it if its holder died. */
function tryAcquire(lockFile: string): boolean {
  try {
    const fd = openSync(lockFile, 'wx', 0o600);
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    heldHere.add(resolve(lockFile));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const holder = lockHolder(lockFile);
  // A holder that crashed leaves its file behind: a dead pid frees the lock for the next try.
  if (holder !== undefined && isStale(lockFile, holder)) rmSync(lockFile, { force: true });
  return false;
}

/** Removes a lock file this process holds. */
function releaseLock(lockFile: string): void {
  heldHere.delete(resolve(lockFile));
  rmSync(lockFile, { force: true });
}

/**
 * Runs `fn` while holding an exclusive lock file: created with `wx` (fails if it exists,
 * atomic on a local file system), holding the holder's pid, removed in `finally`. Other
 * holders — another process or another call in this one — wait until it is gone; a lock
 * whose pid is no longer running, or that names this process without being held by it (a
 * container's PID 1 after a restart), is stale and cleared. After `timeoutMs` the wait fails
 * with an error naming the file and its holder, never silently proceeding. Waiting polls,
 * because the usual holder is another process and there is no event to wait on.
 * Single host only: pids mean nothing across machines sharing a network file system. Two
 * waiters clearing the same stale lock at the same instant could both proceed; a crashed
 * holder is rare enough in a demo stack that this stays simple.
 */
export async function withFileLock<T>(lockFile: string, fn: () => T | Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 25;
  mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  const deadline = Date.now() + timeoutMs;
  while (!tryAcquire(lockFile)) {
    if (Date.now() >= deadline) {
      const holder = lockHolder(lockFile);
      throw new Error(
        `${lockFile}: still held by process ${holder ?? '(unknown)'} after ${timeoutMs / 1000} s; ` +
          'if that process is not running, delete the lock file and try again',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
  try {
    return await fn();
  } finally {
    releaseLock(lockFile);
  }
}

/** A lock held until `release()`, from {@link acquireFileLock}. */
export interface HeldLock {
  release(): void;
}

/**
 * Takes the same kind of lock file as {@link withFileLock}, but without waiting and for as
 * long as the caller likes: for "one process per data directory" rules where the kernel
 * cannot hold the lock (`acquireDirectoryLock` off Linux). A lock whose holder died is
 * cleared and taken; a live holder (another process, or this one) makes it throw at once,
 * naming the file and the holder's pid.
 */
export function acquireFileLock(lockFile: string): HeldLock {
  mkdirSync(dirname(lockFile), { recursive: true, mode: 0o700 });
  // Twice: the first attempt may only clear a stale lock left by a crashed holder.
  if (!tryAcquire(lockFile) && !tryAcquire(lockFile)) {
    const holder = lockHolder(lockFile);
    throw new Error(`${lockFile}: held by process ${holder ?? '(unknown)'}, which is still running`);
  }
  let held = true;
  return {
    release() {
      if (held) releaseLock(lockFile);
      held = false;
    },
  };
}
