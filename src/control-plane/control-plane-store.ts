import { preparePrivateDatabase } from '../files';
import { openSqliteDatabase, type SqlDatabase } from '../sql';
import { createAuditRepository, type AuditRepository } from './audit-repository';
import { createDirectoryRepository, type DirectoryRepository } from './directory-repository';
import { createMembershipRepository, type MembershipRepository } from './membership-repository';
import type { SqlHandle } from './in-transaction';
import { migrateSchema } from './migrations/migrate-schema';
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
   * the CLIs); it also sets the relay's registration handle apart (see `openRegistrationDatabase`). The server passes {@link SERVER_BUSY_TIMEOUT_MS}: a request that still finds
   * the file locked answers 503 instead of stalling every other request.
   */
  readonly busyTimeoutMs?: number;
}

/** The control plane server's busy timeout: short, because better-sqlite3 waits on the event loop. */
export const SERVER_BUSY_TIMEOUT_MS = 250;

/** The store's repositories: over the database, or over one transaction (`transaction`). */
export interface ControlPlaneRepositories {
  readonly tenants: TenantRepository;
  /** Each tenant's kind (personal or organization) and members with their roles. */
  readonly members: MembershipRepository;
  /** Each tenant's log of changes made through the console. */
  readonly audit: AuditRepository;
  readonly images: PolicyImageRepository;
  /** Each tenant's registered image-signing public keys. */
  readonly signingKeys: SigningKeyRepository;
  readonly directory: DirectoryRepository;
}

/**
 * The control plane's persistent state behind one asynchronous SQL interface (one SQLite
 * file today): tenants and their keys, edge connections, account kinds and members, the
 * policy registry (with image signatures and signing keys), each tenant's central
 * directory, and the relay's registration table. Secrets are only stored as SHA-256 hashes.
 */
export interface ControlPlaneStore extends ControlPlaneRepositories {
  /**
   * Runs `work` in one transaction: the repositories it is handed write inside it, so all
   * of it commits when `work` resolves and none of it when it throws (the error is
   * rethrown). `work` must use them, never the store itself, which would wait for it.
   */
  transaction<T>(work: (tx: ControlPlaneRepositories) => Promise<T>): Promise<T>;
  /** Constant-time; false for an unknown tenant. */
  verifyTenantKey(tenantId: string, kind: TenantKeyKind, key: string): Promise<boolean>;
  /** Constant-time; undefined for an unknown connection or a wrong secret. */
  verifyConnection(connectionId: string, secret: string): Promise<EdgeConnection | undefined>;
  /**
   * A handle the relay writes its registrations through: on a file, a second connection
   * with the relay's own (short) busy timeout, so a locked file delays registrations by at
   * most that much while the REST API keeps its own timeout; on ':memory:' the store's own
   * handle (closing it then does nothing).
   */
  openRegistrationDatabase(options: { readonly busyTimeoutMs: number }): Promise<SqlDatabase>;
  /** Closes the database once pending transactions have finished. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) the store at `file`, owner-only (0600, also an older file and its
 * `-wal`/`-shm`, in a 0700 folder): WAL journal so readers never block the
 * writer, foreign keys on, a busy timeout so a second process (the tenants CLI) waits
 * for a lock instead of failing, and the schema migrated to the newest version.
 */
export async function openControlPlaneStore(file: string, options: ControlPlaneStoreOptions = {}): Promise<ControlPlaneStore> {
  const now = options.now ?? Date.now;
  const memory = file === ':memory:';
  // Owner-only: the file holds no plain secrets, but tenant data is nobody else's business.
  if (!memory) preparePrivateDatabase(file);
  const db = await openSqliteDatabase(file, { busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
  try {
    await migrateSchema(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const repositories = (sql: SqlHandle): ControlPlaneRepositories => ({
    tenants: createTenantRepository(sql, now),
    members: createMembershipRepository(sql, now),
    audit: createAuditRepository(sql, now),
    images: createPolicyImageRepository(sql, now),
    signingKeys: createSigningKeyRepository(sql, now),
    directory: createDirectoryRepository(sql, options.changeLogLimit ?? DEFAULT_CHANGE_LOG_LIMIT),
  });
  const own = repositories(db);
  const { tenants } = own;
  return {
    ...own,
    transaction: (work) => db.transaction((tx) => work(repositories(tx))),
    verifyTenantKey: (tenantId, kind, key) => tenants.verifyKey(tenantId, kind, key),
    verifyConnection: (connectionId, secret) => tenants.verifyConnection(connectionId, secret),
    openRegistrationDatabase: (relayOptions) =>
      memory ? Promise.resolve(unclosable(db)) : openSqliteDatabase(file, { busyTimeoutMs: relayOptions.busyTimeoutMs, fileMustExist: true }),
    close: () => db.close(),
  };
}

/** The same database, with a `close` that leaves it open for its owner. */
function unclosable(db: SqlDatabase): SqlDatabase {
  return {
    engine: db.engine,
    all: (sql, params) => db.all(sql, params),
    get: (sql, params) => db.get(sql, params),
    run: (sql, params) => db.run(sql, params),
    exec: (script) => db.exec(script),
    transaction: (work) => db.transaction(work),
    close: () => Promise.resolve(),
  };
}

/**
 * Runs `work` in a transaction of the store's own, or inside the caller's when handed a
 * transaction's repositories, so a multi-step change (a new tenant, the demo seed) is
 * atomic alone and composes into a larger one.
 */
export function inStoreTransaction<T>(
  store: ControlPlaneRepositories | ControlPlaneStore,
  work: (tx: ControlPlaneRepositories) => Promise<T>,
): Promise<T> {
  return 'transaction' in store ? store.transaction(work) : work(store);
}
