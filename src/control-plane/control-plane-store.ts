import { preparePrivateDatabase } from '../files';
import { openPostgresDatabase, openSqliteDatabase, type SqlDatabase } from '../sql';
import { createAuditRepository, type AuditRepository } from './audit-repository';
import { createDecisionRepository, type DecisionRepository } from './decision-repository';
import { createDirectoryRepository, type DirectoryRepository } from './directory-repository';
import { createMembershipRepository, type MembershipRepository } from './membership-repository';
import type { SqlHandle } from './in-transaction';
import { notingDirectory, notingImages, type ChangeListener, type TenantChange } from './note-changes';
import { migrateSchema } from './migrations/migrate-schema';
import { MIGRATION_LOCK_KEY, takeNodeLock } from './migrations/postgres-migrations';
import { createPolicyImageRepository, type PolicyImageRepository } from './policy-image-repository';
import { createSigningKeyRepository, type SigningKeyRepository } from './signing-key-repository';
import { createTenantRepository, type EdgeConnection, type TenantKeyKind, type TenantRepository } from './tenant-repository';
import { cachedTenantKeyCheck } from './tenant-key-cache';

/** Change-log entries kept per tenant; an edge further behind does a full resync. */
export const DEFAULT_CHANGE_LOG_LIMIT = 10_000;

/** A PostgreSQL database that several control-plane nodes share (`DATABASE_URL`). */
export interface PostgresLocation {
  /** `postgres://user:password@host:port/db`; holds a password, so it is never logged as is. */
  readonly databaseUrl: string;
  /** Connections this process keeps at most (`DATABASE_POOL_SIZE`). */
  readonly poolSize?: number;
}

/**
 * Where the store lives: a SQLite file (or `':memory:'`), the embedded default for one
 * node, or a PostgreSQL database for several.
 */
export type ControlPlaneLocation = string | PostgresLocation;

/** Options of {@link openControlPlaneStore}. */
export interface ControlPlaneStoreOptions {
  /** Clock for `created_at` columns (ms since the epoch). */
  readonly now?: () => number;
  readonly changeLogLimit?: number;
  /**
   * SQLite only: how long a write waits for another process's lock, synchronously (default 5000 ms, for
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
  /** Each tenant's decision records, shipped by its edges (docs/reference/api.md, "Decision records"). */
  readonly decisions: DecisionRepository;
}

/**
 * The control plane's persistent state behind one asynchronous SQL interface (a SQLite
 * file for one node, or the PostgreSQL database several nodes share): tenants and their keys, edge connections, account kinds and members, the
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
  /**
   * A {@link transaction} that runs alone among every node's exclusive transactions: for a
   * check-then-create no row lock covers, such as seeding an empty database, which several
   * nodes starting at once would otherwise each do. On PostgreSQL it first takes a
   * transaction-scoped advisory lock; a SQLite write transaction is exclusive anyway.
   */
  exclusiveTransaction<T>(work: (tx: ControlPlaneRepositories) => Promise<T>): Promise<T>;
  /**
   * Calls `listener` with each directory change and each policy push made through this store
   * handle, once it is committed (after the transaction, for one made inside one); returns
   * the function that stops it. Push on change listens here (docs/reference/api.md).
   */
  onChange(listener: ChangeListener): () => void;
  /** Constant-time; false for an unknown tenant. Several candidates (readings of one credential) cost one read. */
  verifyTenantKey(tenantId: string, kind: TenantKeyKind, key: string | readonly string[]): Promise<boolean>;
  /** Constant-time; undefined for an unknown connection or a wrong secret. */
  verifyConnection(connectionId: string, secret: string): Promise<EdgeConnection | undefined>;
  /**
   * A handle the relay writes its registrations through: on a file, a second connection
   * with the relay's own (short) busy timeout, so a locked file delays registrations by at
   * most that much while the REST API keeps its own timeout; on ':memory:' and on
   * PostgreSQL (whose pool has lock and connect time-outs of its own) the store's own
   * handle, whose `close` then does nothing.
   */
  openRegistrationDatabase(options: { readonly busyTimeoutMs: number }): Promise<SqlDatabase>;
  /** Closes the database once pending transactions have finished. Idempotent. */
  close(): Promise<void>;
}

/** The advisory lock of {@link ControlPlaneStore.exclusiveTransaction}, next to the migrations' own. */
export const EXCLUSIVE_LOCK_KEY = MIGRATION_LOCK_KEY + 1;

/** How long an exclusive transaction waits for another node's (a seed takes a moment). */
const EXCLUSIVE_LOCK_TIMEOUT = '60s';

/**
 * Opens the store and migrates its schema to the newest version. On a file (created if
 * needed) it is owner-only (0600, also an older file and its `-wal`/`-shm`, in a 0700
 * folder), with a WAL journal so readers never block the writer, foreign keys on, and a
 * busy timeout so a second process (the tenants CLI) waits for a lock instead of failing.
 * On PostgreSQL it is a pool of at most `poolSize` connections; nodes starting together
 * migrate once, under an advisory lock.
 */
export async function openControlPlaneStore(at: ControlPlaneLocation, options: ControlPlaneStoreOptions = {}): Promise<ControlPlaneStore> {
  const now = options.now ?? Date.now;
  const file = typeof at === 'string' ? at : undefined;
  const memory = file === ':memory:';
  let db: SqlDatabase;
  if (file === undefined) {
    const location = at as PostgresLocation;
    db = openPostgresDatabase(location.databaseUrl, { poolSize: location.poolSize, applicationName: 'outpost-control-plane' });
  } else {
    // Owner-only: the file holds no plain secrets, but tenant data is nobody else's business.
    if (!memory) preparePrivateDatabase(file);
    db = await openSqliteDatabase(file, { busyTimeoutMs: options.busyTimeoutMs ?? 5000 });
  }
  try {
    await migrateSchema(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const listeners = new Set<ChangeListener>();
  const emit = (change: TenantChange) => {
    for (const listener of listeners) listener(change);
  };
  const repositories = (sql: SqlHandle, note: ChangeListener = emit): ControlPlaneRepositories => ({
    tenants: createTenantRepository(sql, now),
    members: createMembershipRepository(sql, now),
    audit: createAuditRepository(sql, now),
    images: notingImages(createPolicyImageRepository(sql, now), note),
    signingKeys: createSigningKeyRepository(sql, now),
    directory: notingDirectory(createDirectoryRepository(sql, options.changeLogLimit ?? DEFAULT_CHANGE_LOG_LIMIT), note),
    decisions: createDecisionRepository(sql),
  });
  const own = repositories(db);
  async function afterCommit<T>(run: (note: ChangeListener) => Promise<T>): Promise<T> {
    const noted: TenantChange[] = [];
    const result = await run((change) => void noted.push(change));
    for (const change of noted) emit(change);
    return result;
  }
  const { tenants } = own;
  // SQLite tells exactly when anything changed, so the key hashes can be kept between checks;
  // PostgreSQL cannot without a query, so there every check reads the hash (docs/architecture.md, "Tenant keys").
  const { changeStamp } = db;
  const verifyTenantKey: ControlPlaneStore['verifyTenantKey'] =
    changeStamp === undefined ? (tenantId, kind, key) => tenants.verifyKey(tenantId, kind, key) : cachedTenantKeyCheck({ changeStamp, keyHash: tenants.keyHash });
  return {
    ...own,
    // A transaction's changes are told only once it has committed, and none when it rolled back.
    transaction: (work) => afterCommit((note) => db.transaction((tx) => work(repositories(tx, note)))),
    exclusiveTransaction: (work) =>
      afterCommit((note) =>
        db.transaction(async (tx) => {
          if (db.engine === 'postgres') await takeNodeLock(tx, EXCLUSIVE_LOCK_KEY, EXCLUSIVE_LOCK_TIMEOUT);
          return work(repositories(tx, note));
        }),
      ),
    onChange(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    verifyTenantKey,
    verifyConnection: (connectionId, secret) => tenants.verifyConnection(connectionId, secret),
    openRegistrationDatabase: (relayOptions) =>
      file === undefined || memory
        ? Promise.resolve(unclosable(db))
        : openSqliteDatabase(file, { busyTimeoutMs: relayOptions.busyTimeoutMs, fileMustExist: true }),
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
