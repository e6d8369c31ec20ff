import Database from 'better-sqlite3';
import type { Logger } from '../observability';
import type { RelayStore } from './relay-store';

/**
 * How long one registration write may wait for a lock held by another process (the tenants
 * CLI). better-sqlite3 waits synchronously, so this bounds how long a locked database can
 * stall the event loop; a write that still finds it locked is skipped and logged.
 */
export const REGISTRATION_BUSY_TIMEOUT_MS = 50;

/** The relay's own handle on the registration table, and how writes to it fail. */
export interface RelayDatabase {
  readonly db: Database.Database;
  /**
   * Runs one registration write; false when the database refused it (locked, read-only,
   * disk full). The error is logged with its SQLite code only; nothing here throws.
   */
  write(what: string, instanceId: string, work: () => void): boolean;
  close(): void;
}

/**
 * The relay writes registrations through a connection of its own to the control plane's
 * file, with a short busy timeout; the REST API's connection keeps its own. A ':memory:'
 * store has no file to share, so it is used as it is (and not closed here).
 */
export function openRelayDatabase(store: RelayStore, log: Logger): RelayDatabase {
  const own = !store.db.memory;
  const db = own ? new Database(store.db.name, { fileMustExist: true, timeout: REGISTRATION_BUSY_TIMEOUT_MS }) : store.db;
  return {
    db,
    write(what, instanceId, work) {
      try {
        work();
        return true;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        log.error({ instance_id: instanceId, err_code: typeof code === 'string' ? code : (err as Error).name }, `relay could not store the ${what}`);
        return false;
      }
    },
    close() {
      if (own && db.open) db.close();
    },
  };
}
