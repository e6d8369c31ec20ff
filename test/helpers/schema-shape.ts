import Database from 'better-sqlite3';
import type { SqlDatabase } from '../../src/sql';

/**
 * What a database's schema is, one sorted line per fact. `common` holds what both engines must
 * agree on, in words of neither (types by family, checks as their allowed values); `exact`
 * adds what only one engine has (SQLite's stored CREATE text, STRICT; PostgreSQL's types,
 * collations and constraint names), to compare two databases of one engine.
 */
export interface SchemaShape {
  readonly common: {
    readonly tables: string[];
    readonly columns: string[];
    readonly indexes: string[];
    readonly foreignKeys: string[];
    readonly checks: string[];
  };
  readonly exact: string[];
}

/** SQLite's declared types and PostgreSQL's as one family each. */
function family(type: string): string {
  const t = type.toLowerCase();
  if (t === 'integer' || t === 'bigint') return 'integer';
  if (t === 'blob' || t === 'bytea') return 'bytes';
  return t;
}

const column = (table: string, name: string, type: string, notNull: boolean, dflt: string | null, pk: number | null, identity: boolean) =>
  `${table}.${name} ${identity ? 'identity' : family(type)} ${notNull ? 'not null' : 'null'}${dflt === null ? '' : ` default ${dflt}`}${pk ? ` pk${pk}` : ''}`;

/** `x IN ('a', 'b')` and `x = ANY (ARRAY['a'::text, 'b'::text])` both as `table.x in (a, b)`. */
const check = (table: string, def: string) => `${table}.${/CHECK \(+(\w+)/.exec(def)![1]} in (${[...def.matchAll(/'([^']*)'/g)].map((m) => m[1]).join(', ')})`;

/** SQLite's stored CREATE text with its spacing evened out. */
const evenSpacing = (sql: string) => sql.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').replace(/ \(/g, '(');

/** The schema of the SQLite file at `file` (every table but SQLite's own). */
export function sqliteSchemaShape(file: string): SchemaShape {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const shape: SchemaShape = { common: { tables: [], columns: [], indexes: [], foreignKeys: [], checks: [] }, exact: [] };
    const tables = db.prepare<[], { name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all();
    const strict = new Set(db.prepare<[], { name: string; strict: number }>('PRAGMA table_list').all().filter((t) => t.strict).map((t) => t.name));
    for (const { name, sql } of tables) {
      shape.common.tables.push(name);
      shape.exact.push(`${name}${strict.has(name) ? ' STRICT' : ''}: ${evenSpacing(sql)}`);
      for (const c of db.prepare<[], { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(`PRAGMA table_info(${name})`).all()) {
        const identity = c.pk === 1 && new RegExp(`\\b${c.name}\\s+INTEGER PRIMARY KEY AUTOINCREMENT`, 'i').test(sql);
        shape.common.columns.push(column(name, c.name, c.type, c.notnull === 1 || c.pk > 0, c.dflt_value, c.pk, identity));
      }
      for (const m of sql.matchAll(/CHECK \(\w+ IN \([^)]*\)\)/g)) shape.common.checks.push(check(name, m[0]));
      const fks = new Map<number, { table: string; from: string[]; to: string[]; onDelete: string; onUpdate: string }>();
      for (const fk of db.prepare<[], { id: number; table: string; from: string; to: string; on_delete: string; on_update: string }>(`PRAGMA foreign_key_list(${name})`).all()) {
        const entry = fks.get(fk.id) ?? { table: fk.table, from: [], to: [], onDelete: fk.on_delete, onUpdate: fk.on_update };
        entry.from.push(fk.from);
        entry.to.push(fk.to);
        fks.set(fk.id, entry);
      }
      for (const fk of fks.values()) {
        shape.common.foreignKeys.push(`${name}(${fk.from.join(', ')}) -> ${fk.table}(${fk.to.join(', ')}) on delete ${fk.onDelete.toLowerCase()} on update ${fk.onUpdate.toLowerCase()}`);
      }
    }
    for (const i of db.prepare<[], { name: string; tbl_name: string; sql: string }>("SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all()) {
      const unique = db.prepare<[], { name: string; unique: number }>(`PRAGMA index_list(${i.tbl_name})`).all().find((x) => x.name === i.name)!.unique;
      const columns = db.prepare<[], { name: string }>(`PRAGMA index_info(${i.name})`).all().map((c) => c.name);
      shape.common.indexes.push(`${i.tbl_name}: ${i.name} (${columns.join(', ')})${unique ? ' unique' : ''}`);
      shape.exact.push(`${i.name}: ${evenSpacing(i.sql)}`);
    }
    return sorted(shape);
  } finally {
    db.close();
  }
}

const ACTIONS: Record<string, string> = { a: 'no action', c: 'cascade', r: 'restrict', n: 'set null', d: 'set default' };

/** The schema of the PostgreSQL database `db` (its public tables but `schema_version`). */
export async function postgresSchemaShape(db: SqlDatabase): Promise<SchemaShape> {
  const shape: SchemaShape = { common: { tables: [], columns: [], indexes: [], foreignKeys: [], checks: [] }, exact: [] };
  const columns = await db.all<{ tbl: string; col: string; type: string; nullable: string; dflt: string | null; identity: string; collation: string | null; pk: number | null }>(`
    SELECT c.table_name AS tbl, c.column_name AS col, c.data_type AS type, c.is_nullable AS nullable, c.column_default AS dflt,
      c.is_identity AS identity, c.collation_name AS collation,
      (SELECT k.ordinal_position FROM information_schema.table_constraints t
         JOIN information_schema.key_column_usage k ON k.constraint_name = t.constraint_name AND k.table_name = t.table_name
        WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_name = c.table_name AND k.column_name = c.column_name) AS pk
    FROM information_schema.columns c
    WHERE c.table_schema = 'public' AND c.table_name <> 'schema_version'`);
  for (const c of columns) {
    // A literal default without its cast ('rbac'::text); SQLite keeps it as written.
    const dflt = c.dflt === null ? null : c.dflt.replace(/::[a-z ]+$/, '');
    shape.common.columns.push(column(c.tbl, c.col, c.type, c.nullable === 'NO', dflt, c.pk, c.identity === 'YES'));
    shape.exact.push(`${c.tbl}.${c.col} ${c.type}${c.collation ? ` collate ${c.collation}` : ''}${c.identity === 'YES' ? ' identity' : ''}`);
  }
  shape.common.tables.push(...new Set(columns.map((c) => c.tbl)));
  const constraints = await db.all<{ tbl: string; name: string; type: string; def: string; ref: string | null; del: string; upd: string; cols: string | null; refcols: string | null }>(`
    SELECT c.conrelid::regclass::text AS tbl, c.conname AS name, c.contype AS type, pg_get_constraintdef(c.oid) AS def,
      c.confrelid::regclass::text AS ref, c.confdeltype AS del, c.confupdtype AS upd,
      (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum) AS cols,
      (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum) AS refcols
    FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
    WHERE n.nspname = 'public' AND c.conrelid::regclass::text <> 'schema_version'`);
  for (const c of constraints) {
    shape.exact.push(`${c.tbl}: ${c.name} ${c.def}`);
    if (c.type === 'c') shape.common.checks.push(check(c.tbl, c.def));
    if (c.type === 'f') shape.common.foreignKeys.push(`${c.tbl}(${c.cols}) -> ${c.ref}(${c.refcols}) on delete ${ACTIONS[c.del]} on update ${ACTIONS[c.upd]}`);
  }
  const indexes = await db.all<{ tbl: string; name: string; cols: string; is_unique: boolean; def: string }>(`
    SELECT t.relname AS tbl, i.relname AS name, x.indisunique AS is_unique, pg_get_indexdef(x.indexrelid) AS def,
      (SELECT string_agg(a.attname, ', ' ORDER BY k.ord) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS cols
    FROM pg_index x
    JOIN pg_class i ON i.oid = x.indexrelid
    JOIN pg_class t ON t.oid = x.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
    WHERE n.nspname = 'public' AND NOT x.indisprimary AND t.relname <> 'schema_version'`);
  for (const i of indexes) {
    shape.common.indexes.push(`${i.tbl}: ${i.name} (${i.cols})${i.is_unique ? ' unique' : ''}`);
    shape.exact.push(`${i.name}: ${i.def}`);
  }
  return sorted(shape);
}

function sorted(shape: SchemaShape): SchemaShape {
  const { tables, columns, indexes, foreignKeys, checks } = shape.common;
  return { common: { tables: tables.sort(), columns: columns.sort(), indexes: indexes.sort(), foreignKeys: foreignKeys.sort(), checks: checks.sort() }, exact: shape.exact.sort() };
}
