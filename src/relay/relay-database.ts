import type { Logger } from '../observability';
import type { SqlDatabase } from '../sql';
import type { RelayStore } from './relay-store';

/**
 * How long one registration write may wait for a lock held by another process (the tenants
 * CLI). better-sqlite3 waits synchronously, so this bounds how long a locked database can
 * stall the event loop; a write that still finds it locked is skipped and logged.
 */
export const REGISTRATION_BUSY_TIMEOUT_MS = 50;

/** Runs one registration write; resolves false when the database refused it, never rejects. */
export type RegistrationWrite = (what: string, instanceId: string, work: () => Promise<unknown>) => Promise<boolean>;

/** The relay's own handle on the registration table, and how writes to it fail. */
export interface RelayDatabase {
  readonly db: SqlDatabase;
  /**
   * Runs one registration write; false when the database refused it (locked, read-only,
   * disk full). The error is logged with its code only; nothing here rejects.
   */
  readonly write: RegistrationWrite;
  /** Waits for the writes under way, then closes the handle. */
  close(): Promise<void>;
}

/**
 * The relay writes registrations through a handle of its own, with a short busy timeout;
 * the REST API's handle keeps its own.
 */
export async function openRelayDatabase(store: RelayStore, log: Logger): Promise<RelayDatabase> {
  const db = await store.openRegistrationDatabase({ busyTimeoutMs: REGISTRATION_BUSY_TIMEOUT_MS });
  const inFlight = new Set<Promise<boolean>>();
  const write: RegistrationWrite = (what, instanceId, work) => {
    const done = work().then(
      () => true,
      (err: unknown) => {
        const code = (err as { code?: unknown }).code;
        log.error({ instance_id: instanceId, err_code: typeof code === 'string' ? code : (err as Error).name }, `relay could not store the ${what}`);
        return false;
      },
    );
    inFlight.add(done);
    void done.then(() => inFlight.delete(done));
    return done;
  };
  return {
    db,
    write,
    async close() {
      await Promise.all(inFlight);
      await db.close();
    },
  };
}
