import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Writes a file that holds secrets (private keys, password hashes): owner-only mode
 * 0600 in an owner-only folder, written to a temporary name and renamed into place so
 * a reader (another process, a crash) never sees half a file.
 */
export function writeSecretFile(file: string, content: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, content, { mode: 0o600 });
  // The mode given to writeFileSync is filtered by the umask; make sure it is 0600.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}
