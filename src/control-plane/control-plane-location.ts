import type { Config } from '../config';
import { redactDatabaseUrl } from '../sql';
import { controlPlaneDbPath } from './control-plane-db-path';
import type { ControlPlaneLocation } from './control-plane-store';

/**
 * Where the configuration puts the control plane's store: the PostgreSQL database of
 * `DATABASE_URL` (with `DATABASE_POOL_SIZE` connections) when it is set, else the SQLite
 * file in the data directory, exactly as a single node always had it. The server and every
 * CLI open the store through this, so they never disagree.
 */
export function controlPlaneLocation(config: Pick<Config, 'dataDir' | 'controlPlane'>): ControlPlaneLocation {
  const { databaseUrl, databasePoolSize } = config.controlPlane;
  if (databaseUrl !== undefined && databaseUrl !== '') return { databaseUrl, poolSize: databasePoolSize };
  return controlPlaneDbPath(config.dataDir);
}

/** The engine and where, fit for a log line: a database URL's password becomes `***`. */
export function describeControlPlaneLocation(at: ControlPlaneLocation): { readonly engine: 'sqlite' | 'postgres'; readonly database: string } {
  return typeof at === 'string' ? { engine: 'sqlite', database: at } : { engine: 'postgres', database: redactDatabaseUrl(at.databaseUrl) };
}
