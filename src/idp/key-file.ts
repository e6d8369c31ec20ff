import { FileContentError, readJsonFile, writeFileAtomic } from '../files';
import { keyFileSchema, type KeyFile } from './signing-keys';

/**
 * The lock that serialises every read-modify-write of the key file: the IdP's own
 * first-start generation and rotations, and `npm run rotate-key` in another process.
 */
export function keyFileLock(file: string): string {
  return `${file}.lock`;
}

/**
 * Reads `keys.json`; `undefined` when it does not exist. A file that is empty (a write cut
 * by a power loss), not JSON or not a key file throws a {@link FileContentError} naming
 * the file. Messages never quote the content: it holds private keys.
 */
export function readKeyFile(file: string): KeyFile | undefined {
  const raw = readJsonFile(file);
  if (raw === undefined) return undefined;
  const parsed = keyFileSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  throw new FileContentError(file, `not a valid key file (${where}${issue.message})`);
}

/** Writes `keys.json` atomically, owner-only (0600) and fsynced. */
export function writeKeyFile(file: string, keys: KeyFile): void {
  writeFileAtomic(file, `${JSON.stringify(keys, null, 2)}\n`);
}

/**
 * Reads `keys.json` when opening the key store: `undefined` when missing (first start). An
 * unreadable file stops the IdP with an error naming the file and the two ways out —
 * silently generating new keys instead would quietly invalidate every issued token —
 * unless `onUnreadable` is given: then it is told why and `undefined` is returned, so the
 * caller writes a new key set (what `npm run rotate-key` does).
 */
export function openKeyFile(file: string, onUnreadable?: (err: FileContentError) => void): KeyFile | undefined {
  try {
    return readKeyFile(file);
  } catch (err) {
    if (!(err instanceof FileContentError)) throw err;
    if (!onUnreadable) throw unreadableKeyFileError(err);
    onUnreadable(err);
    return undefined;
  }
}

function unreadableKeyFileError(err: FileContentError): Error {
  return new Error(
    `${err.message}. The IdP cannot sign tokens without its keys. To recover, run \`npm run rotate-key\` ` +
      `(it replaces the file with a new key), or delete ${err.file} and start again to generate one; ` +
      'either way, tokens signed with the old keys will be refused and users must sign in again.',
    { cause: err },
  );
}
