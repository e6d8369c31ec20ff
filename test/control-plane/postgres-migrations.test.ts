import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openControlPlaneStore } from '../../src/control-plane';
import { migrateSchema } from '../../src/control-plane/migrations/migrate-schema';
import { POSTGRES_MIGRATIONS, postgresMigrationPlan } from '../../src/control-plane/migrations/postgres-migrations';
import { openPostgresDatabase, type SqlDatabase } from '../../src/sql';
import { usePostgres } from '../helpers/postgres';

const pg = usePostgres();

const open: SqlDatabase[] = [];
function connect(url: string): SqlDatabase {
  const db = openPostgresDatabase(url);
  open.push(db);
  return db;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((db) => db.close()));
});

/** A schema reduced to what both engines must agree on, one sorted line per fact. */
interface Shape {
  readonly columns: string[];
  readonly indexes: string[];
  readonly foreignKeys: string[];
}

/** SQLite's declared types and PostgreSQL's as one family each. */
function family(type: string): string {
  const t = type.toLowerCase();
  if (t === 'integer' || t === 'bigint') return 'integer';
  if (t === 'blob' || t === 'bytea') return 'bytes';
  return t;
}

const migratePostgres = (db: SqlDatabase, migrations: readonly string[]) => migrateSchema(db, postgresMigrationPlan(migrations));

/** The control plane's SQLite file as the store builds it (every SQLite migration, the relay's table included). */
async function sqliteShape(): Promise<Shape> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-shape-'));
  const file = join(dir, 'control-plane.db');
  await (await openControlPlaneStore(file)).close();
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
    const columns: string[] = [];
    const foreignKeys = new Map<string, { table: string; from: string[]; to: string[]; onDelete: string }>();
    for (const { name } of tables) {
      for (const c of db.prepare<[], { name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info(${name})`).all()) {
        columns.push(`${name}.${c.name} ${family(c.type)} ${c.notnull || c.pk ? 'not null' : 'null'}${c.pk ? ` pk${c.pk}` : ''}`);
      }
      for (const fk of db.prepare<[], { id: number; table: string; from: string; to: string; on_delete: string }>(`PRAGMA foreign_key_list(${name})`).all()) {
        const key = `${name}#${fk.id}`;
        const entry = foreignKeys.get(key) ?? { table: fk.table, from: [], to: [], onDelete: fk.on_delete };
        entry.from.push(fk.from);
        entry.to.push(fk.to);
        foreignKeys.set(key, entry);
      }
    }
    const indexes = db
      .prepare<[], { name: string; tbl_name: string }>("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
      .all()
      .map((i) => `${i.tbl_name}: ${i.name} (${db.prepare<[], { name: string }>(`PRAGMA index_info(${i.name})`).all().map((c) => c.name).join(', ')})`);
    const fks = [...foreignKeys].map(([key, fk]) => `${key.split('#')[0]}(${fk.from.join(', ')}) -> ${fk.table}(${fk.to.join(', ')}) on delete ${fk.onDelete.toLowerCase()}`);
    return { columns: columns.sort(), indexes: indexes.sort(), foreignKeys: fks.sort() };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const DELETE_ACTIONS: Record<string, string> = { a: 'no action', c: 'cascade', r: 'restrict', n: 'set null', d: 'set default' };

async function postgresShape(db: SqlDatabase): Promise<Shape> {
  const columns = await db.all<{ tbl: string; col: string; type: string; nullable: string; pk: number | null }>(`
    SELECT c.table_name AS tbl, c.column_name AS col, c.data_type AS type, c.is_nullable AS nullable,
      (SELECT k.ordinal_position FROM information_schema.table_constraints t
         JOIN information_schema.key_column_usage k ON k.constraint_name = t.constraint_name AND k.table_name = t.table_name
        WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_name = c.table_name AND k.column_name = c.column_name) AS pk
    FROM information_schema.columns c
    WHERE c.table_schema = 'public' AND c.table_name <> 'schema_version'`);
  const indexes = await db.all<{ tbl: string; name: string; cols: string }>(`
    SELECT t.relname AS tbl, i.relname AS name, string_agg(a.attname, ', ' ORDER BY k.ord) AS cols
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
    WHERE n.nspname = 'public' AND NOT x.indisprimary
    GROUP BY t.relname, i.relname`);
  const fks = await db.all<{ tbl: string; cols: string; ref: string; refcols: string; del: string }>(`
    SELECT c.conrelid::regclass::text AS tbl, c.confrelid::regclass::text AS ref, c.confdeltype AS del,
      string_agg(a.attname, ', ' ORDER BY k.ord) AS cols, string_agg(af.attname, ', ' ORDER BY k.ord) AS refcols
    FROM pg_constraint c
    CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(attnum, fattnum, ord)
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum
    JOIN pg_attribute af ON af.attrelid = c.confrelid AND af.attnum = k.fattnum
    WHERE c.contype = 'f'
    GROUP BY c.oid, c.conrelid, c.confrelid, c.confdeltype`);
  return {
    columns: columns.map((c) => `${c.tbl}.${c.col} ${family(c.type)} ${c.nullable === 'NO' ? 'not null' : 'null'}${c.pk ? ` pk${c.pk}` : ''}`).sort(),
    indexes: indexes.map((i) => `${i.tbl}: ${i.name} (${i.cols})`).sort(),
    foreignKeys: fks.map((f) => `${f.tbl}(${f.cols}) -> ${f.ref}(${f.refcols}) on delete ${DELETE_ACTIONS[f.del]}`).sort(),
  };
}

async function versions(db: SqlDatabase): Promise<number[]> {
  return (await db.all<{ version: number }>('SELECT version FROM schema_version ORDER BY version')).map((r) => r.version);
}

describe('PostgreSQL migrations', () => {
  it('build the same tables, columns, keys and indexes as the SQLite schema, all nine versions', async () => {
    const db = connect(await pg.freshDatabase());
    expect(await migratePostgres(db, POSTGRES_MIGRATIONS)).toBe(POSTGRES_MIGRATIONS.length);
    const expected = await sqliteShape();
    expect(expected.columns.length).toBeGreaterThan(40);
    expect(await postgresShape(db)).toEqual(expected);
    expect(await versions(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('are a no-op the second time', async () => {
    const db = connect(await pg.freshDatabase());
    await migratePostgres(db, POSTGRES_MIGRATIONS);
    const before = await db.all('SELECT version, applied_at FROM schema_version ORDER BY version');
    expect(await migratePostgres(db, POSTGRES_MIGRATIONS)).toBe(10);
    expect(await db.all('SELECT version, applied_at FROM schema_version ORDER BY version')).toEqual(before);
  });

  it('run exactly once when three nodes start on one fresh database at the same time', async () => {
    const url = await pg.freshDatabase();
    const nodes = [connect(url), connect(url), connect(url)];
    expect(await Promise.all(nodes.map((db) => migratePostgres(db, POSTGRES_MIGRATIONS)))).toEqual([10, 10, 10]);
    expect(await versions(nodes[0]!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('refuse a database newer than this build and leave it untouched', async () => {
    const db = connect(await pg.freshDatabase());
    await migratePostgres(db, POSTGRES_MIGRATIONS);
    await expect(migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, 3))).rejects.toThrow(
      'control-plane database has schema version 10, newer than this build (3)',
    );
    expect(await versions(db)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('leave nothing behind when a migration fails', async () => {
    const db = connect(await pg.freshDatabase());
    await migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, 2));
    const broken = [...POSTGRES_MIGRATIONS.slice(0, 3), 'CREATE TABLE half_done (x INTEGER); SELECT * FROM no_such_table'];
    await expect(migratePostgres(db, broken)).rejects.toMatchObject({ code: '42P01' });
    expect(await versions(db)).toEqual([1, 2]);
    expect(await db.get("SELECT to_regclass('half_done') AS t, to_regclass('audit_log') AS a")).toEqual({ t: null, a: null });
  });

  it('number images stored before migration 5 in the order they were stored, as SQLite does', async () => {
    const db = connect(await pg.freshDatabase());
    await migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, 4));
    await db.run("INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES ('t', 't', '\\x00', '\\x00', 1)");
    // Same millisecond for the first two, an earlier time for the third.
    for (const [digest, at] of [['d-z', 10], ['d-a', 10], ['d-m', 5]] as const) {
      await db.run("INSERT INTO policy_images (tenant_id, name, digest, body, created_at) VALUES ('t', 'rbac', ?, '{}', ?)", [digest, at]);
    }
    await migratePostgres(db, POSTGRES_MIGRATIONS);
    expect(await db.all('SELECT digest, seq FROM policy_images ORDER BY seq')).toEqual([
      { digest: 'd-m', seq: 1 },
      { digest: 'd-z', seq: 2 },
      { digest: 'd-a', seq: 3 },
    ]);
  });

  it('keep the signatures stored before migration 6, with no version, and start every policy without one', async () => {
    const db = connect(await pg.freshDatabase());
    await migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, 5));
    await db.run("INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES ('t', 't', '\\x00', '\\x00', 1)");
    await db.run("INSERT INTO policy_images (tenant_id, name, digest, body, created_at, seq) VALUES ('t', 'rbac', 'd', '{}', 1, 1)");
    await db.run("INSERT INTO policy_signatures (tenant_id, name, digest, signature) VALUES ('t', 'rbac', 'd', 'a.b.c')");
    await migratePostgres(db, POSTGRES_MIGRATIONS);
    expect(await db.all('SELECT digest, signature, version FROM policy_signatures')).toEqual([{ digest: 'd', signature: 'a.b.c', version: null }]);
    expect(await db.all('SELECT * FROM policy_versions')).toEqual([]);
  });
  it('let the tenants CLI write audit entries from migration 8 on, keeping the entries before it', async () => {
    const db = connect(await pg.freshDatabase());
    await migratePostgres(db, POSTGRES_MIGRATIONS.slice(0, 7));
    await db.run("INSERT INTO tenants (id, name, discovery_key_hash, admin_key_hash, created_at) VALUES ('t', 't', '\\x00', '\\x00', 1)");
    await db.run("INSERT INTO audit_log (tenant_id, actor, actor_kind, action, target, outcome, at) VALUES ('t', 'admin_key', 'admin_key', 'a', NULL, 'ok', 1)");
    await expect(db.run("INSERT INTO audit_log (tenant_id, actor, actor_kind, action, target, outcome, at) VALUES ('t', 'x', 'cli', 'a', NULL, 'ok', 1)")).rejects.toMatchObject({ code: '23514' });
    await migratePostgres(db, POSTGRES_MIGRATIONS);
    await db.run("INSERT INTO audit_log (tenant_id, actor, actor_kind, action, target, outcome, at) VALUES ('t', 'tenants_cli', 'cli', 'b', NULL, 'ok', 2)");
    await expect(db.run("INSERT INTO audit_log (tenant_id, actor, actor_kind, action, target, outcome, at) VALUES ('t', 'x', 'robot', 'c', NULL, 'ok', 3)")).rejects.toMatchObject({ code: '23514' });
    expect(await db.all('SELECT actor_kind, action FROM audit_log ORDER BY id')).toEqual([
      { actor_kind: 'admin_key', action: 'a' },
      { actor_kind: 'cli', action: 'b' },
    ]);
  });
});
