import { chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Opens `file` owner-only: created with mode 0600, and an existing file (say, a log from
 * before this rule) is narrowed to 0600 too, since the mode given to open(2) only applies
 * on creation and is filtered by the umask. The parent directory is created 0700.
 * Returns the file descriptor; the caller closes it.
 */
export function openPrivateFile(file: string, flags: 'a' | 'r+' = 'a'): number {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const fd = openSync(file, flags, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  return fd;
}

/**
 * Makes a SQLite database file owner-only before it is opened: creates it 0600 (SQLite
 * itself would create it with 0644 under the usual umask) and narrows an existing one and
 * its `-wal`/`-shm` companions. SQLite creates new `-wal`/`-shm` files with the database
 * file's own mode, so they follow. `:memory:` is left alone.
 */
export function preparePrivateDatabase(file: string): void {
  if (file === ':memory:' || file === '') return;
  closeSync(openPrivateFile(file));
  for (const companion of [`${file}-wal`, `${file}-shm`]) {
    if (existsSync(companion)) chmodSync(companion, 0o600);
  }
}
