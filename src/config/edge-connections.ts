import { APP_LIST_FILE, findApp } from './app-list';
import type { Config } from './config';
import { demoTenantPath, readDemoTenantFile, type DemoTenant } from './demo-tenant-file';

/** An edge's connection credentials and where they came from (the variables, or the demo tenant file). */
export interface EdgeConnectionCredentials {
  readonly connectionId: string;
  readonly connectionSecret: string;
  /** "EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET", or the demo tenant file's path: what a refusal names. */
  readonly source: string;
}

/**
 * The sidecar edge's connection: `EDGE_CONNECTION_ID`/`EDGE_CONNECTION_SECRET`, or else the
 * demo tenant file the control plane writes on first start. The edge and the launcher's
 * registration check read it here, so they never disagree.
 */
export function sidecarConnection(config: Config): EdgeConnectionCredentials {
  const { connectionId, connectionSecret } = config.edge;
  if (connectionId && connectionSecret) return { connectionId, connectionSecret, source: 'EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET' };
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(config.dataDir);
  } catch (err) {
    throw new Error(`no edge connection credentials: set EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET, or start the control plane first (${(err as Error).message})`);
  }
  return { connectionId: demo.connection_id, connectionSecret: demo.connection_secret, source: demoTenantPath(config.dataDir) };
}

/**
 * The embedded-edge connection of the app `name` of `apps.json`: its `<env>_CONNECTION_ID`
 * and `_SECRET`, else its entry in the demo tenant file the control plane writes.
 */
export function appConnection(config: Config, name: string): EdgeConnectionCredentials {
  const app = findApp(config, name);
  const { connectionId, connectionSecret } = app;
  if (connectionId && connectionSecret) return { connectionId, connectionSecret, source: `${app.vars.connectionId} and ${app.vars.connectionSecret}` };
  const missing = `no connection for the ${app.name} app's embedded edge: set ${app.vars.connectionId} and ${app.vars.connectionSecret}, or start the control plane first`;
  let entry;
  try {
    entry = readDemoTenantFile(config.dataDir).app_connections?.[app.connection];
  } catch (err) {
    throw new Error(`${missing} (${(err as Error).message})`);
  }
  if (!entry) throw new Error(`${missing} (the demo tenant file has no connection "${app.connection}" yet; restart the control plane to add the ${APP_LIST_FILE} apps' connections)`);
  return { connectionId: entry.connection_id, connectionSecret: entry.connection_secret, source: demoTenantPath(config.dataDir) };
}
