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

const migratePostgres = (db: SqlDatabase, migrations: readonly string[]) => migrateSchema(db, postgresMigrationPlan(migrations));

async function versions(db: SqlDatabase): Promise<number[]> {
  return (await db.all<{ version: number }>('SELECT version FROM schema_version ORDER BY version')).map((r) => r.version);
}

// That they build the same tables as SQLite's: one-schema.test.ts.
describe('PostgreSQL migrations', () => {
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
