import { readDemoTenantFile, writeDemoTenantFile, type DemoTenant } from '../config';
import { demoTenantDatabase, type DemoTenantDatabase } from './demo-tenant-database';
import type { TenantKeyKind } from './tenant-keys';

/** The demo tenant file a control plane keeps in step: its data folder and its own database. */
export interface DemoTenantFileLocation {
  readonly dataDir: string;
  readonly database: DemoTenantDatabase;
}

const KEY_FIELD = { discovery: 'discovery_api_key', admin: 'admin_api_key' } as const satisfies Record<TenantKeyKind, keyof DemoTenant>;

/**
 * After a rotation of `tenantId`'s `kind` key, run inside the rotation's transaction: when the
 * folder's demo tenant file is that tenant's (and not another engine's), writes the new key
 * into it with the seed's writer (0600, atomic). The scripts read their keys from that file,
 * and the database keeps only hashes, so without this every script is refused (401). A
 * failed write fails the transaction: the old key then still works and the file still holds
 * it. Returns the file when it was written.
 */
export function recordRotatedDemoKey(at: DemoTenantFileLocation, tenantId: string, kind: TenantKeyKind, key: string): string | undefined {
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(at.dataDir);
  } catch {
    return undefined; // no demo tenant here (or not one this control plane can read): nothing to keep in step
  }
  if (demo.tenant_id !== tenantId) return undefined;
  // Tenant ids are random UUIDs, so a match is this tenant; the engine check only keeps a copied file apart.
  const owner = demoTenantDatabase(at.dataDir, demo);
  if (owner !== undefined && owner.engine !== at.database.engine) return undefined;
  return writeDemoTenantFile(at.dataDir, { ...demo, [KEY_FIELD[kind]]: key });
}
