import Database from 'better-sqlite3';
import { preparePrivateDatabase } from '../files';
import { createAuditRepository, type AuditRepository } from './audit-repository';
import { createDirectoryRepository, type DirectoryRepository } from './directory-repository';
import { createMembershipRepository, type MembershipRepository } from './membership-repository';
import { migrateSchema } from './migrate-schema';
import { createPolicyImageRepository, type PolicyImageRepository } from './policy-image-repository';
import { createSigningKeyRepository, type SigningKeyRepository } from './signing-key-repository';
import { createTenantRepository, type EdgeConnection, type TenantKeyKind, type TenantRepository } from './tenant-repository';

/** Change-log entries kept per tenant; an edge further behind does a full resync. */
export const DEFAULT_CHANGE_LOG_LIMIT = 10_000;

/** Options of {@link openControlPlaneStore}. */
export interface ControlPlaneStoreOptions {
  /** Clock for `created_at` columns (ms since the epoch). */
  readonly now?: () => number;
  readonly changeLogLimit?: number;
  /**
   * How long a write waits for another process's lock, synchronously (default 5000 ms, for
   * the CLIs). The server passes {@link SERVER_BUSY_TIMEOUT_MS}: a request that still finds
   * the file locked answers 503 instead of stalling every other request.
   */
  readonly busyTimeoutMs?: number;
}

/** The control plane server's busy timeout: short, because better-sqlite3 waits on the event loop. */
export const SERVER_BUSY_TIMEOUT_MS = 250;

/**
 * The control plane's persistent state in one SQLite file: tenants and their keys, edge
 * connections, account kinds and members, the policy registry (with image signatures and signing keys) and each
 * tenant's central directory. Secrets are only
 * stored as SHA-256 hashes.
 */
export interface ControlPlaneStore {
  /** Shared handle: the relay keeps its own table(s) in the same file. */
  readonly db: Database.Database;
  readonly tenants: TenantRepository;
  /** Each tenant's kind (personal or organization) and members with their roles. */
  readonly members: MembershipRepository;
  /** Each tenant's log of changes made through the console. */
  readonly audit: AuditRepository;
  readonly images: PolicyImageRepository;
  /** Each tenant's registered image-signing public keys. */
  readonly signingKeys: SigningKeyRepository;
  readonly directory: DirectoryRepository;
  /** Constant-time; false for an unknown tenant. */
  verifyTenantKey(tenantId: string, kind: TenantKeyKind, key: string): boolean;
  /** Constant-time; undefined for an unknown connection or a wrong secret. */
  verifyConnection(connectionId: string, secret: string): EdgeConnection | undefined;
  close(): void;
}

/**
 * Opens (creating if needed) the store at `file`, owner-only (0600, also an older file and its
 * `-wal`/`-shm`, in a 0700 folder): WAL journal so readers never block the
 * writer, foreign keys on, a busy timeout so a second process (the tenants CLI) waits
 * for a lock instead of failing, and the schema migrated to the newest version.
 */
export function openControlPlaneStore(file: string, options: ControlPlaneStoreOptions = {}): ControlPlaneStore {
  const now = options.now ?? Date.now;
  // Owner-only: the file holds no plain secrets, but tenant data is nobody else's business.
  preparePrivateDatabase(file);
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma('synchronous = NORMAL');
    migrateSchema(db);
  } catch (err) {
    db.close();
    throw err;
  }
  const tenants = createTenantRepository(db, now);
  return {
    db,
    tenants,
    members: createMembershipRepository(db, now),
    audit: createAuditRepository(db, now),
    images: createPolicyImageRepository(db, now),
    signingKeys: createSigningKeyRepository(db, now),
    directory: createDirectoryRepository(db, options.changeLogLimit ?? DEFAULT_CHANGE_LOG_LIMIT),
    verifyTenantKey: (tenantId, kind, key) => tenants.verifyKey(tenantId, kind, key),
    verifyConnection: (connectionId, secret) => tenants.verifyConnection(connectionId, secret),
    close: () => {
      if (db.open) db.close();
    },
  };
}
