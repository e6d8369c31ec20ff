import { readDemoTenantFile, type DemoTenant } from '../config';
import type { ControlPlaneStore } from './control-plane-store';
import { appConnectionLabel, projectApps, type DemoApp } from './demo-apps';

/**
 * What the demo tenant's sidecar connection (`connection_id` in demo-tenant.json) serves, as
 * the console names it; each app's embedded edge is `<its label> (embedded edge)` ({@link appConnectionLabel}).
 */
export const DEMO_CONNECTION_LABELS = {
  sidecar: 'sidecar',
} as const;

/** The demo file's connection ids with the label each should carry: the sidecar's and each listed app's it has. */
function demoConnections(demo: DemoTenant, apps: readonly DemoApp[]): [string, string][] {
  const connections: [string, string][] = [[demo.connection_id, DEMO_CONNECTION_LABELS.sidecar]];
  for (const app of apps) {
    const entry = demo.app_connections?.[app.connection];
    if (entry) connections.push([entry.connection_id, appConnectionLabel(app)]);
  }
  return connections;
}

/**
 * A data directory seeded before connections had labels: labels the demo tenant's connections
 * named in `demo-tenant.json` that have none (a label someone gave one stays). Does nothing
 * when the file is absent or names a tenant the store lacks. Returns true when it labelled any.
 */
export async function ensureDemoConnectionLabels(store: ControlPlaneStore, dataDir: string, apps: readonly DemoApp[] = projectApps()): Promise<boolean> {
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(dataDir);
  } catch {
    return false;
  }
  let labelled = false;
  for (const [connectionId, label] of demoConnections(demo, apps)) {
    if (await store.tenants.labelConnection(demo.tenant_id, connectionId, label)) labelled = true;
  }
  return labelled;
}
