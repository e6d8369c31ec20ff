import { preparePrivateDatabase } from '../files';
import { openPostgresDatabase, openSqliteDatabase, type SqlDatabase } from '../sql';
import { createAuditRepository } from './audit-repository';
import type { ControlPlaneLocation, ControlPlaneRepositories, ControlPlaneStore, ControlPlaneStoreOptions, PostgresLocation } from './control-plane-store';
import { createDirectoryRepository } from './directory-repository';
import type { SqlHandle } from './in-transaction';
import { createMembershipRepository } from './membership-repository';
import { migrateSchema } from './migrations/migrate-schema';
import { MIGRATION_LOCK_KEY, takeNodeLock } from './migrations/postgres-migrations';
import { notingDirectory, notingImages, type ChangeListener, type TenantChange } from './note-changes';
import { createPolicyImageRepository } from './policy-image-repository';
import { cachedTenantKeyCheck } from './tenant-key-cache';
import { createTenantRepository } from './tenant-repository';

/** Change-log entries kept per tenant; an edge further behind does a full resync. */
export const DEFAULT_CHANGE_LOG_LIMIT = 10_000;

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
    sql,
    tenants: createTenantRepository(sql, now),
    members: createMembershipRepository(sql, now),
    audit: createAuditRepository(sql, now),
    images: notingImages(createPolicyImageRepository(sql, now), note),
    directory: notingDirectory(createDirectoryRepository(sql, options.changeLogLimit ?? DEFAULT_CHANGE_LOG_LIMIT), note),
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
    database: db,
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
