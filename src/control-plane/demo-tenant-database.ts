import { existsSync } from 'node:fs';
import { demoTenantPath, foreignDemoTenantWayOut, nameDatabase, readDemoTenantFile, type DemoTenant, type DemoTenantDatabase } from '../config';
import { controlPlaneDbPath } from './control-plane-db-path';
import type { ControlPlaneRepositories } from './control-plane-store';

export type { DemoTenantDatabase };

/**
 * The database `demo` belongs to: its record, or for a file written before files recorded
 * one, the SQLite file beside it if there is one (only a SQLite control plane kept a
 * database in the data folder); undefined when nothing says.
 */
export function demoTenantDatabase(dataDir: string, demo: DemoTenant): DemoTenantDatabase | undefined {
  if (demo.control_plane !== undefined) return demo.control_plane;
  const file = controlPlaneDbPath(dataDir);
  return existsSync(file) ? { engine: 'sqlite', database: file } : undefined;
}

/** A seed would write over another engine's demo tenant file, the only copy of that tenant's keys. */
export class DemoTenantFileConflictError extends Error {
  constructor(readonly file: string, readonly owner: DemoTenantDatabase, readonly database: DemoTenantDatabase) {
    super(
      `${file} belongs to ${nameDatabase(owner)}, and this control plane runs on ${nameDatabase(database)}: ` +
        "seeding its demo tenant here would overwrite the only copy of the other tenant's keys. Give each engine its own folder: " +
        'leave OUTPOST_DATA_DIR unset (with DATABASE_URL the stack then uses <data folder>/postgres) or set it to another folder; ' +
        `or move ${file} aside if that demo tenant is no longer needed`,
    );
    this.name = 'DemoTenantFileConflictError';
  }
}

/**
 * Throws {@link DemoTenantFileConflictError} when `dataDir` holds a demo tenant file of
 * another engine's control plane. Same engine, another database (a throwaway PostgreSQL
 * that is gone, a SQLite file deleted) is replaced as before: that tenant went with it.
 */
export function refuseOtherEnginesDemoTenant(dataDir: string, database: DemoTenantDatabase): void {
  let existing: DemoTenant;
  try {
    existing = readDemoTenantFile(dataDir);
  } catch {
    return; // none, or unreadable: no keys to keep
  }
  const owner = demoTenantDatabase(dataDir, existing);
  if (owner !== undefined && owner.engine !== database.engine) throw new DemoTenantFileConflictError(demoTenantPath(dataDir), owner, database);
}

/**
 * When `dataDir`'s demo tenant file names a tenant this database does not have, the
 * words for it: which database the file belongs to, which one this is, and the way out.
 * Every edge reading that file is refused (401), so the control plane says it at start.
 */
export async function describeForeignDemoTenant(
  store: Pick<ControlPlaneRepositories, 'tenants'>,
  dataDir: string,
  database: DemoTenantDatabase,
): Promise<string | undefined> {
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(dataDir);
  } catch {
    return undefined;
  }
  if (await store.tenants.exists(demo.tenant_id)) return undefined;
  const owner = demoTenantDatabase(dataDir, demo);
  const other = owner === undefined || (owner.engine === database.engine && owner.database === database.database) ? '' : ` of ${nameDatabase(owner)}`;
  return (
    `${demoTenantPath(dataDir)} names tenant ${demo.tenant_id}${other}, which ${nameDatabase(database)} does not have: ` +
    `every edge reading that file is refused (401), and so are the scripts. ${foreignDemoTenantWayOut(dataDir, database.engine)}`
  );
}
