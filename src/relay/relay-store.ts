import type { SqlDatabase } from '../sql';

/** The edge connection an upgrade authenticated as: which tenant, which connection. */
export interface EdgeConnection {
  readonly tenantId: string;
  readonly connectionId: string;
}

/**
 * What the relay needs from the control plane's store: the check of an edge's connection
 * credentials, and a database handle for its registration table (created by the store's
 * migrations). The control plane passes its store; the relay never imports the control plane.
 */
export interface RelayStore {
  verifyConnection(connectionId: string, secret: string): Promise<EdgeConnection | undefined>;
  /**
   * A handle the relay writes registrations through, with the relay's own busy timeout
   * where the engine has one; the relay closes it when it closes.
   */
  openRegistrationDatabase(options: { readonly busyTimeoutMs: number }): Promise<SqlDatabase>;
}
