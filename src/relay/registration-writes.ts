import type { EdgeStatus } from '../relay-protocol';
import type { InstanceKey } from './registration';
import type { RegistrationStore } from './registration-store';
import type { RegistrationWrite } from './relay-database';

/** What of a status is stored, as one comparable string. */
function statusFingerprint(status: EdgeStatus): string {
  return `${status.policy_name}\u0000${status.policy_digest ?? ''}\u0000${status.directory_revision}`;
}

const unchanged = Promise.resolve();

/**
 * One edge session's writes to its registration, applied one after the other even where the
 * engine runs statements concurrently (the store never rejects: a refused write resolves
 * false, logged there). A class, so its methods live once on the prototype: every connected
 * edge holds one.
 */
export class RegistrationWrites {
  private last: Promise<boolean> = Promise.resolve(true);
  /**
   * The status last written: a command that changed nothing (the usual "sync now" with nothing
   * new) costs no write; last_seen then moves with the heartbeat.
   */
  private storedStatus: string | undefined;
  /** Settles once the write of {@link storedStatus} has: a caller that reports the same status waits for it too. */
  private statusWritten: Promise<void> = unchanged;

  constructor(
    private readonly store: RegistrationWrite,
    private readonly registrations: RegistrationStore,
    private readonly now: () => number,
  ) {}

  /** Queues one write behind the ones before it; resolves false when the database refused it. */
  inOrder(what: string, instanceId: string, write: () => Promise<unknown>): Promise<boolean> {
    const next = this.last.then(() => this.store(what, instanceId, write));
    this.last = next;
    return next;
  }

  /** Notes the status a `register` frame stored with the registration. */
  stored(status: EdgeStatus): void {
    this.storedStatus = statusFingerprint(status);
  }

  /**
   * Stores a reported status unless it is the one stored or being stored; settles once stored
   * (or not: the store never rejects). A command's result that repeats a status frame still in
   * flight waits for that frame's write, so exec never answers before the registration shows it.
   */
  status(key: InstanceKey, status: EdgeStatus): Promise<void> {
    const fingerprint = statusFingerprint(status);
    if (fingerprint === this.storedStatus) return this.statusWritten;
    this.storedStatus = fingerprint;
    this.statusWritten = this.inOrder('status', key.instanceId, () => this.registrations.updateStatus(key, status, this.now())).then((ok) => {
      if (!ok && this.storedStatus === fingerprint) this.storedStatus = undefined; // not stored: write it next time
    });
    return this.statusWritten;
  }
}
