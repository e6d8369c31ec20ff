import { closeSync, fchmodSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface WriteFileAtomicOptions {
  /** File mode, set with fchmod so the umask cannot widen or narrow it. Default 0600. */
  readonly mode?: number;
}

/** Flushes a directory entry (the rename) to disk; without it a power loss can undo the rename. */
function fsyncDirectory(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `content` so that a crash, a power loss or a concurrent reader sees
 * the old file or the new one, never an empty or half-written one: write a temporary file
 * in the same directory, fsync it, rename(2) it over `file` (atomic on one file system),
 * then fsync the directory so the rename itself is durable. The parent directory is
 * created owner-only (0700). On any failure the temporary file is removed and `file` is
 * left as it was.
 */
export function writeFileAtomic(file: string, content: string, options: WriteFileAtomicOptions = {}): void {
  const mode = options.mode ?? 0o600;
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // A dot name in the same directory: same file system (rename stays atomic), hidden from globs.
  const temp = join(dir, `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      fchmodSync(fd, mode);
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  fsyncDirectory(dir);
}
