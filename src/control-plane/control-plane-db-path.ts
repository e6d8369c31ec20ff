import { join } from 'node:path';

/** File name of the control plane's SQLite database inside the data directory. */
export const CONTROL_PLANE_DB_FILE = 'control-plane.db';

/** Where the control plane's database lives for a data directory. */
export function controlPlaneDbPath(dataDir: string): string {
  return join(dataDir, CONTROL_PLANE_DB_FILE);
}
