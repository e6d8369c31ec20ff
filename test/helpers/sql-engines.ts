import { join } from 'node:path';
import { Client } from 'pg';
import { startLocalPostgres, type LocalPostgres } from '../../scripts/lib/local-postgres';
import type { ControlPlaneLocation } from '../../src/control-plane';
import { openPostgresDatabase, openSqliteDatabase, type SqlDatabase, type SqlEngine } from '../../src/sql';

/**
 * Every engine the SQL and repository tests run against (`describe.each(SQL_ENGINES)`).
 * A database belongs to a temp folder `dir` the test owns and removes, so a new folder is a
 * new, empty database and the same folder reopens it: SQLite a file in it, PostgreSQL a new
 * database on the test file's throwaway server (started at its first use, stopped after
 * the file's last test).
 */
export interface SqlEngineUnderTest {
  readonly name: SqlEngine;
  /** The folder's plain database, opened. */
  open(dir: string): Promise<SqlDatabase>;
  /** Where the folder's control-plane store lives (a different database than `open`'s). */
  location(dir: string): Promise<ControlPlaneLocation>;
}

let server: Promise<LocalPostgres> | undefined;
let databases = 0;

/** The test file's PostgreSQL server, started on first use. */
export function postgresServer(): Promise<LocalPostgres> {
  server ??= startLocalPostgres();
  return server;
}

// Jest loads this module once per test file: the file's server goes with its last test.
afterAll(async () => {
  const running = server;
  server = undefined;
  if (running) await (await running).stop();
}, 30_000);

/**
 * The URL of a new, empty database on the test file's server. It sorts text by ICU's
 * English rules, as a database made with a usual locale does, not by bytes as SQLite does:
 * every ORDER BY the repositories rely on must not depend on the database's collation.
 */
export async function freshPostgresDatabase(): Promise<string> {
  const pg = await postgresServer();
  databases += 1;
  const name = `engine_${databases}`;
  const admin = new Client({ connectionString: pg.urlFor('postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`);
  } finally {
    await admin.end();
  }
  return pg.urlFor(name);
}

export const SQLITE_ENGINE: SqlEngineUnderTest = {
  name: 'sqlite',
  open: (dir) => openSqliteDatabase(join(dir, 'test.db')),
  location: async (dir) => join(dir, 'control-plane.db'),
};

const byFolder = new Map<string, Promise<string>>();
/** The database of a folder (and purpose): created on first use, the same one after. */
function databaseOf(key: string): Promise<string> {
  let url = byFolder.get(key);
  if (url === undefined) {
    url = freshPostgresDatabase();
    byFolder.set(key, url);
  }
  return url;
}

export const POSTGRES_ENGINE: SqlEngineUnderTest = {
  name: 'postgres',
  open: async (dir) => openPostgresDatabase(await databaseOf(`${dir}#sql`)),
  location: async (dir) => ({ databaseUrl: await databaseOf(`${dir}#store`) }),
};

export const SQL_ENGINES: readonly SqlEngineUnderTest[] = [SQLITE_ENGINE, POSTGRES_ENGINE];

/** A plain handle on a store's database, for a test to set up rows the API would refuse to make. */
export function openLocation(at: ControlPlaneLocation): Promise<SqlDatabase> {
  return typeof at === 'string' ? openSqliteDatabase(at) : Promise.resolve(openPostgresDatabase(at.databaseUrl));
}
