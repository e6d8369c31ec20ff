import { readDemoTenantFile, type DemoTenant } from '../config';
import type { ControlPlaneStore } from './control-plane-store';

/**
 * What each of the demo tenant's connections serves, as the console names it: the sidecar's
 * (`connection_id` in demo-tenant.json) and each sample app's embedded edge.
 */
export const DEMO_CONNECTION_LABELS = {
  sidecar: 'sidecar',
  rbac: 'RBAC app (embedded edge)',
  todo: 'todo app (embedded edge)',
} as const;

/** The demo file's connection ids with the label each should carry. */
function demoConnections(demo: DemoTenant): [string, string][] {
  const apps = demo.app_connections;
  return [
    [demo.connection_id, DEMO_CONNECTION_LABELS.sidecar],
    ...(apps ? ([[apps.rbac.connection_id, DEMO_CONNECTION_LABELS.rbac], [apps.todo.connection_id, DEMO_CONNECTION_LABELS.todo]] as [string, string][]) : []),
  ];
}

/**
 * A data directory seeded before connections had labels: labels the demo tenant's connections
 * named in `demo-tenant.json` that have none (a label someone gave one stays). Does nothing
 * when the file is absent or names a tenant the store lacks. Returns true when it labelled any.
 */
export async function ensureDemoConnectionLabels(store: ControlPlaneStore, dataDir: string): Promise<boolean> {
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(dataDir);
  } catch {
    return false;
  }
  let labelled = false;
  for (const [connectionId, label] of demoConnections(demo)) {
    if (await store.tenants.labelConnection(demo.tenant_id, connectionId, label)) labelled = true;
  }
  return labelled;
}
