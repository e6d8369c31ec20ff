import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** File name of the demo tenant's credentials inside the data directory. */
export const DEMO_TENANT_FILE = 'demo-tenant.json';

const demoTenantSchema = z.object({
  tenant_id: z.string().min(1),
  discovery_api_key: z.string().min(1),
  admin_api_key: z.string().min(1),
  connection_id: z.string().min(1),
  connection_secret: z.string().min(1),
  auth_url: z.string().min(1),
  relay_url: z.string().min(1),
  app_url: z.string().min(1),
});

/**
 * The demo tenant's credentials and the interface's URL placeholders. The control plane
 * keeps only hashes of the keys, so `<data dir>/demo-tenant.json` is the ONLY copy of the
 * plain keys: lose it and the keys must be rotated (`npm run tenants -- rotate-key`).
 * Demo only: real tenants keep their keys in a secret store.
 */
export type DemoTenant = z.infer<typeof demoTenantSchema>;

/** Where the demo tenant file lives for a data directory. */
export function demoTenantPath(dataDir: string): string {
  return join(dataDir, DEMO_TENANT_FILE);
}

/**
 * Writes the file readable by its owner only (mode 0600), via a temporary file and a
 * rename so a crash never leaves half a file behind.
 */
export function writeDemoTenantFile(dataDir: string, demo: DemoTenant): string {
  const file = demoTenantPath(dataDir);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(demoTenantSchema.parse(demo), null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return file;
}

/** Reads and checks the demo tenant file; throws when it is missing or malformed. */
export function readDemoTenantFile(dataDir: string): DemoTenant {
  const file = demoTenantPath(dataDir);
  const raw: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const parsed = demoTenantSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`${file} is not a valid demo tenant file`);
  return parsed.data;
}
