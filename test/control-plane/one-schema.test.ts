import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openControlPlaneStore } from '../../src/control-plane';
import { CONTROL_PLANE_MIGRATIONS } from '../../src/control-plane/migrations/control-plane-schema';
import { migrateSchema } from '../../src/control-plane/migrations/migrate-schema';
import { POSTGRES_MIGRATIONS, postgresMigrationPlan } from '../../src/control-plane/migrations/postgres-migrations';
import { emptySchema, renderMigrations } from '../../src/control-plane/migrations/render-schema-steps';
import { SQLITE_MIGRATIONS, sqliteMigrationPlan } from '../../src/control-plane/migrations/sqlite-migrations';
import { openPostgresDatabase, openSqliteDatabase, type SqlDatabase } from '../../src/sql';
// The migration lists as each engine kept them by hand until the schema was declared once
// (captured from the build before, versions 1-10): the databases running today were made by them.
import CAPTURED_POSTGRES from '../fixtures/control-plane-schema/postgres-migrations-v10.json';
import CAPTURED_SQLITE from '../fixtures/control-plane-schema/sqlite-migrations-v10.json';
import { usePostgres } from '../helpers/postgres';
import { postgresSchemaShape, sqliteSchemaShape, type SchemaShape } from '../helpers/schema-shape';

const pg = usePostgres();
const VERSIONS = Array.from({ length: CAPTURED_SQLITE.length + 1 }, (_, v) => v);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'outpost-one-schema-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A row an older build wrote, to find again once the database is migrated. */
const OLD_TENANT = ['t-old', 'old', Buffer.from([0]), Buffer.from([1]), 1];
const insertOldTenant = (db: SqlDatabase) =>
  db.run('INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES (?, ?, ?, ?, ?)', OLD_TENANT);

/** A SQLite file migrated with `migrations` (a prefix of a list), then closed. */
async function sqliteFile(name: string, migrations: readonly string[]): Promise<string> {
  const file = join(dir, name);
  const db = await openSqliteDatabase(file);
  await migrateSchema(db, sqliteMigrationPlan(migrations));
  if (migrations.length > 0) await insertOldTenant(db);
  await db.close();
  return file;
}

async function postgresShape(url: string): Promise<SchemaShape> {
  const db = openPostgresDatabase(url);
  try {
    return await postgresSchemaShape(db);
  } finally {
    await db.close();
  }
}

/** A PostgreSQL database migrated with `migrations` (a prefix of a list); its URL. */
async function postgresDatabase(migrations: readonly string[]): Promise<string> {
  const url = await pg.freshDatabase();
  const db = openPostgresDatabase(url);
  try {
    await migrateSchema(db, postgresMigrationPlan(migrations));
    if (migrations.length > 0) await insertOldTenant(db);
  } finally {
    await db.close();
  }
  return url;
}

describe('the control-plane schema, declared once', () => {
  it('is the same tables, columns, keys, indexes and checks on a SQLite file and on PostgreSQL', async () => {
    const file = join(dir, 'control-plane.db');
    await (await openControlPlaneStore(file)).close();
    const url = await pg.freshDatabase();
    await (await openControlPlaneStore({ databaseUrl: url })).close();

    const sqlite = sqliteSchemaShape(file);
    expect((await postgresShape(url)).common).toEqual(sqlite.common);
    // The declaration's tables, every one of them, and a schema of some size (nothing compared empty).
    const declared = emptySchema();
    renderMigrations('sqlite', CONTROL_PLANE_MIGRATIONS, declared);
    expect(sqlite.common.tables).toEqual([...declared.tables.keys()].sort());
    expect(sqlite.common.tables).toHaveLength(13);
    expect(sqlite.common.columns.length).toBeGreaterThan(80);
    expect(sqlite.common.checks).toEqual([
      'audit_log.actor_kind in (user, admin_key, cli)',
      'decisions.decision in (allow, deny)',
      'tenant_members.role in (owner, admin, viewer)',
      'tenants.kind in (personal, organization)',
    ]);
    expect(sqlite.common.foreignKeys.length).toBeGreaterThan(10);
    expect(sqlite.common.indexes.map((line) => line.split(' ')[1]).sort()).toEqual([...declared.indexes.keys()].sort());
  });

  it('renders as many versions as the lists kept by hand had', () => {
    expect(SQLITE_MIGRATIONS).toHaveLength(CAPTURED_SQLITE.length);
    expect(POSTGRES_MIGRATIONS).toHaveLength(CAPTURED_POSTGRES.length);
  });

  describe('on SQLite, a file made by the lists kept by hand', () => {
    it.each(VERSIONS)('at version %i is what the declaration makes of it, and opens and migrates to the newest', async (version) => {
      const old = await sqliteFile('old.db', CAPTURED_SQLITE.slice(0, version));
      const rendered = await sqliteFile('rendered.db', SQLITE_MIGRATIONS.slice(0, version));
      expect(sqliteSchemaShape(old)).toEqual(sqliteSchemaShape(rendered));

      const store = await openControlPlaneStore(old);
      if (version > 0) expect(await store.tenants.exists('t-old')).toBe(true);
      await store.close();
      const fresh = join(dir, 'fresh.db');
      await (await openControlPlaneStore(fresh)).close();
      expect(sqliteSchemaShape(old)).toEqual(sqliteSchemaShape(fresh));
      const db = await openSqliteDatabase(old);
      await expect(db.get('PRAGMA user_version')).resolves.toEqual({ user_version: CAPTURED_SQLITE.length });
      await db.close();
    });
  });

  describe('on PostgreSQL, a database made by the lists kept by hand', () => {
    it.each(VERSIONS)('at version %i is what the declaration makes of it, and opens and migrates to the newest', async (version) => {
      const old = await postgresDatabase(CAPTURED_POSTGRES.slice(0, version));
      const rendered = await postgresDatabase(POSTGRES_MIGRATIONS.slice(0, version));
      expect(await postgresShape(old)).toEqual(await postgresShape(rendered));

      const store = await openControlPlaneStore({ databaseUrl: old });
      if (version > 0) expect(await store.tenants.exists('t-old')).toBe(true);
      await store.close();
      const fresh = await postgresDatabase([]);
      await (await openControlPlaneStore({ databaseUrl: fresh })).close();
      expect(await postgresShape(old)).toEqual(await postgresShape(fresh));
      const db = openPostgresDatabase(old);
      const versions = await db.all<{ version: number }>('SELECT version FROM schema_version ORDER BY version');
      expect(versions.map((v) => v.version)).toEqual(VERSIONS.slice(1));
      await db.close();
    });
  });
});
