import type { Database } from 'better-sqlite3';

/** The edge connection an upgrade authenticated as: which tenant, which connection. */
export interface EdgeConnection {
  readonly tenantId: string;
  readonly connectionId: string;
}

/**
 * What the relay needs from the control plane's store: the SQLite handle its registration
 * table lives in, and the check of an edge's connection credentials. The control plane
 * passes its store; the relay never imports the control plane.
 */
export interface RelayStore {
  readonly db: Database;
  verifyConnection(connectionId: string, secret: string): EdgeConnection | undefined;
}
