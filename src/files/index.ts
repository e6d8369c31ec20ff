// Everything the stack persists to files goes through here: atomic owner-only writes,
// JSON reads whose errors name the file, owner-only logs and databases, a lock file, and a
// one-process-per-directory lock the kernel frees with its holder.
export { writeFileAtomic } from './write-file-atomic';
export { readJsonFile, FileContentError } from './read-json-file';
export { openPrivateFile, preparePrivateDatabase } from './open-private-file';
export { withFileLock, acquireFileLock } from './with-file-lock';
export type { HeldLock } from './with-file-lock';
export { acquireDirectoryLock, DirectoryLockedError } from './acquire-directory-lock';
