import type { SqlDatabase } from '../sql';
import type { AuditRepository } from './audit-repository';
import type { DirectoryRepository } from './directory-repository';
import type { MembershipRepository } from './membership-repository';
import type { ChangeListener } from './note-changes';
import type { PolicyImageRepository } from './policy-image-repository';
import type { EdgeConnection } from './connection-repository';
import type { SqlHandle } from './in-transaction';
import type { TenantKeyKind } from './tenant-keys';
import type { TenantRepository } from './tenant-repository';

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
  /**
   * The handle these repositories read and write through (the transaction's, inside one): a
   * platform area's own repository over the tables the schema declares for it (signing keys:
   * src/signing-keys) joins the same transaction through it.
   */
  readonly sql: SqlHandle;
  readonly tenants: TenantRepository;
  /** Each tenant's kind (personal or organization) and members with their roles. */
  readonly members: MembershipRepository;
  /** Each tenant's log of changes made through the console. */
  readonly audit: AuditRepository;
  readonly images: PolicyImageRepository;
  readonly directory: DirectoryRepository;
}

/**
 * The control plane's persistent state (opened by `openControlPlaneStore`,
 * `open-control-plane-store.ts`) behind one asynchronous SQL interface (a SQLite
 * file for one node, or the PostgreSQL database several nodes share): tenants and their keys, edge connections, account kinds and members, the
 * policy registry (with image signatures), each tenant's central
 * directory, and the relay's registration table. Secrets are only stored as SHA-256 hashes.
 */
export interface ControlPlaneStore extends ControlPlaneRepositories {
  /**
   * The database itself, for the repositories of the platform's areas over the tables the
   * schema declares for them (decision records: src/decision-store; signing keys:
   * src/signing-keys); this store's own
   * repositories are the ones above.
   */
  readonly database: SqlDatabase;
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
   * with the relay's own (short) busy timeout, so a file locked by another process delays
   * registrations by at most that much while the REST API keeps its own timeout (this
   * process's own transactions it waits for: the handles share one queue); on ':memory:' and on
   * PostgreSQL (whose pool has lock and connect time-outs of its own) the store's own
   * handle, whose `close` then does nothing.
   */
  openRegistrationDatabase(options: { readonly busyTimeoutMs: number }): Promise<SqlDatabase>;
  /** Closes the database once pending transactions have finished. Idempotent. */
  close(): Promise<void>;
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
