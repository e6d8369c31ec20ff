import { errors, type Adapter, type AdapterPayload } from 'oidc-provider';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { preparePrivateDatabase } from '../files';
import { openPostgresDatabase, openSqliteDatabase, type SqlDatabase } from '../sql';
import { systemClock, type Clock } from './clock';

/** Where the payloads live: a SQLite file (one process) or PostgreSQL (several IdP processes). */
export type OidcStorageOptions = ({ readonly sqliteFile: string } | { readonly databaseUrl: string; readonly poolSize?: number }) & {
  /** How often expired rows are deleted (default 60 s). They are invisible to `find*` meanwhile. */
  readonly sweepIntervalMs?: number;
};

/** oidc-provider's storage, opened by {@link openOidcStorage}. */
export interface OidcStorage {
  /** The factory oidc-provider's `adapter` option takes: one adapter per model name. */
  readonly adapter: (model: string) => Adapter;
  /** Deletes the expired rows now; returns how many. */
  sweep(): Promise<number>;
  /** Stops the periodic sweep and closes the database. Idempotent. */
  close(): Promise<void>;
}

/**
 * The largest payload stored, in bytes of JSON. Real ones are a few KiB at most; the bound
 * keeps a client from filling the database with, say, huge registration metadata.
 */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/** The schema version this build writes; `idp_oidc_schema` records it so a later one can migrate. */
const SCHEMA_VERSION = 1;

/** The bytes of "oidcst": the advisory lock IdP processes take to create the schema (the control plane uses others). */
const SCHEMA_LOCK_KEY = 0x6f6964637374;

// One table for every model: a row per (model, id). `consumed` is a column rather than a field
// of the JSON so that consume() is one portable UPDATE; find() merges it back.
const SCHEMA = `
  CREATE TABLE IF NOT EXISTS idp_oidc_schema (version INTEGER NOT NULL);
  INSERT INTO idp_oidc_schema (version) SELECT ${SCHEMA_VERSION} WHERE NOT EXISTS (SELECT 1 FROM idp_oidc_schema);
  CREATE TABLE IF NOT EXISTS idp_oidc_payloads (
    model      TEXT NOT NULL,
    id         TEXT NOT NULL,
    payload    TEXT NOT NULL,
    grant_id   TEXT,
    uid        TEXT,
    user_code  TEXT,
    consumed   BIGINT,
    expires_at BIGINT,
    PRIMARY KEY (model, id)
  );
  CREATE INDEX IF NOT EXISTS idp_oidc_payloads_grant ON idp_oidc_payloads (grant_id);
  CREATE INDEX IF NOT EXISTS idp_oidc_payloads_uid ON idp_oidc_payloads (model, uid);
  CREATE INDEX IF NOT EXISTS idp_oidc_payloads_user_code ON idp_oidc_payloads (model, user_code);
  CREATE INDEX IF NOT EXISTS idp_oidc_payloads_expiry ON idp_oidc_payloads (expires_at);
`;

/** Creates the schema if missing, all or nothing; a database of a newer build is refused. */
async function createSchema(db: SqlDatabase): Promise<void> {
  if (db.engine === 'postgres') {
    await db.transaction(async (tx) => {
      // CREATE … IF NOT EXISTS is not safe against a concurrent CREATE on PostgreSQL: of the
      // processes starting together, one creates and the others wait here and find it done.
      // The pool's short time-outs are for requests; a start-up may queue behind a few others.
      await tx.exec(`SET LOCAL lock_timeout = '60s'; SET LOCAL statement_timeout = '60s'; SELECT pg_advisory_xact_lock(${SCHEMA_LOCK_KEY})`);
      await tx.exec(SCHEMA);
    });
  } else {
    // One synchronous script, never a transaction held across an await: better-sqlite3 waits
    // for a lock on the event loop, so another handle in this process could never release it.
    await db.exec(`BEGIN IMMEDIATE; ${SCHEMA} COMMIT;`);
  }
  const row = await db.get<{ version: number }>('SELECT MAX(version) AS version FROM idp_oidc_schema');
  if (row!.version > SCHEMA_VERSION) throw new Error(`IdP database has schema version ${row!.version}, newer than this build (${SCHEMA_VERSION})`);
}

interface Row {
  readonly payload: string;
  readonly consumed: number | null;
}

/** One model's adapter: its rows are those whose `model` is its name. */
function createAdapter(db: SqlDatabase, model: string, now: Clock): Adapter {
  // Expiry is per row and checked on every read, so nothing one client stores can push out another's.
  const findWhere = async (column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> => {
    const row = await db.get<Row>(
      `SELECT payload, consumed FROM idp_oidc_payloads WHERE model = ? AND ${column} = ? AND (expires_at IS NULL OR expires_at > ?) LIMIT 1`,
      [model, value, now()],
    );
    if (row === undefined) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed === null ? payload : { ...payload, consumed: row.consumed };
  };
  return {
    async upsert(id, payload, expiresIn) {
      const json = JSON.stringify(payload);
      const bytes = Buffer.byteLength(json);
      if (bytes > MAX_PAYLOAD_BYTES) throw new Error(`${model} payload of ${bytes} bytes is over the ${MAX_PAYLOAD_BYTES}-byte limit`);
      const expiresAt = typeof expiresIn === 'number' ? Math.ceil(now() + expiresIn * 1000) : null;
      // A replaced payload is a new one: its indexes come from it, and it is not consumed unless it says so.
      await db.run(
        `INSERT INTO idp_oidc_payloads (model, id, payload, grant_id, uid, user_code, consumed, expires_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, ?)
         ON CONFLICT (model, id) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           uid = excluded.uid, user_code = excluded.user_code, consumed = NULL, expires_at = excluded.expires_at`,
        [model, id, json, payload.grantId ?? null, payload.uid ?? null, payload.userCode ?? null, expiresAt],
      );
    },
    find: (id) => findWhere('id', id),
    findByUid: (uid) => findWhere('uid', uid),
    findByUserCode: (userCode) => findWhere('user_code', userCode),
    // The provider checks `consumed`, then calls this: two requests redeeming one code or refresh
    // token together both pass the check (eight simultaneous refreshes forked a family into eight).
    // Only the first UPDATE finds it unconsumed; any other is a reuse, answered as the provider
    // answers one: the grant is revoked (its tokens and the Grant itself) and the request refused.
    async consume(id) {
      const { changes } = await db.run('UPDATE idp_oidc_payloads SET consumed = ? WHERE model = ? AND id = ? AND consumed IS NULL', [
        Math.floor(now() / 1000),
        model,
        id,
      ]);
      if (changes === 1) return;
      const row = await db.get<{ grant_id: string | null }>('SELECT grant_id FROM idp_oidc_payloads WHERE model = ? AND id = ?', [model, id]);
      if (row?.grant_id) await db.run("DELETE FROM idp_oidc_payloads WHERE grant_id = ? OR (model = 'Grant' AND id = ?)", [row.grant_id, row.grant_id]);
      throw new errors.InvalidGrant(`${model} already consumed`);
    },
    async destroy(id) {
      await db.run('DELETE FROM idp_oidc_payloads WHERE model = ? AND id = ?', [model, id]);
    },
    async revokeByGrantId(grantId) {
      await db.run('DELETE FROM idp_oidc_payloads WHERE grant_id = ?', [grantId]);
    },
  };
}

/**
 * Opens oidc-provider's storage in SQL, creating its table if missing, and sweeps expired rows
 * every `sweepIntervalMs` (the timer does not keep the process alive). `now` is the clock of
 * expiry and `consumed`.
 */
export async function openOidcStorage(options: OidcStorageOptions, now: Clock = systemClock): Promise<OidcStorage> {
  if ('sqliteFile' in options) {
    // It holds refresh tokens and sessions: owner-only, like the keys beside it.
    mkdirSync(dirname(options.sqliteFile), { recursive: true, mode: 0o700 });
    preparePrivateDatabase(options.sqliteFile);
  }
  const db =
    'sqliteFile' in options
      ? await openSqliteDatabase(options.sqliteFile)
      : openPostgresDatabase(options.databaseUrl, { poolSize: options.poolSize, applicationName: 'outpost-idp' });
  try {
    await createSchema(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  const sweep = async (): Promise<number> =>
    (await db.run('DELETE FROM idp_oidc_payloads WHERE expires_at <= ?', [now()])).changes;
  const timer = setInterval(() => {
    // A failed sweep is only late: expired rows stay invisible to find*, and the next tick retries.
    sweep().catch(() => undefined);
  }, options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    adapter: (model) => createAdapter(db, model, now),
    sweep,
    async close() {
      clearInterval(timer);
      await db.close();
    },
  };
}
