import type { DemoTenant } from './demo-tenant-file';

/** The control-plane database a demo tenant file belongs to, as `describeControlPlaneLocation` words it. */
export type DemoTenantDatabase = NonNullable<DemoTenant['control_plane']>;

const ENGINE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

/** "the SQLite control plane (/…/control-plane.db)": how every message names a database. */
export function nameDatabase(database: DemoTenantDatabase): string {
  return `the ${ENGINE_NAMES[database.engine]} control plane (${database.database})`;
}

/**
 * The way out of a demo tenant file that names a tenant the running control plane lacks, on
 * `engine`: the control plane logs it at start and the launcher prints it with the refused
 * edges, in the same words. Only a SQLite control plane seeds again once its folder is moved
 * (its database moves with it); a PostgreSQL one needs an empty database.
 */
export function foreignDemoTenantWayOut(dataDir: string, engine: DemoTenantDatabase['engine']): string {
  const fresh =
    engine === 'sqlite'
      ? `or move ${dataDir} aside (mv ${dataDir} ${dataDir}.old) and start again: the control plane then seeds a new demo tenant`
      : 'or point DATABASE_URL at an empty database: the control plane then seeds a new demo tenant and rewrites the file';
  return `Start with the database that file belongs to, ${fresh}`;
}
