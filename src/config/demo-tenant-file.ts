import { join } from 'node:path';
import { z } from 'zod';
import { FileContentError, readJsonFile, writeFileAtomic } from '../files';
import { APP_NAME_PATTERN } from './app-list';

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
  /**
   * The control-plane database the tenant lives in (a PostgreSQL URL without its password),
   * so another engine's control plane never writes over the file; absent in older files.
   */
  control_plane: z.object({ engine: z.enum(['sqlite', 'postgres']), database: z.string().min(1) }).optional(),
  /**
   * One edge connection per app of `apps.json`, for its embedded edge, by the app's `connection`
   * (absent in files written before the apps embedded an edge; an app listed later is added by the next start).
   */
  app_connections: z
    .record(z.string().regex(APP_NAME_PATTERN), z.object({ connection_id: z.string().min(1), connection_secret: z.string().min(1) }))
    .optional(),
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

/** Writes the file owner-only (0600) and atomically, so a crash never loses the only copy. */
export function writeDemoTenantFile(dataDir: string, demo: DemoTenant): string {
  const file = demoTenantPath(dataDir);
  writeFileAtomic(file, `${JSON.stringify(demoTenantSchema.parse(demo), null, 2)}\n`);
  return file;
}

/** Reads and checks the demo tenant file; throws an error naming the file when it is missing or malformed. */
export function readDemoTenantFile(dataDir: string): DemoTenant {
  const file = demoTenantPath(dataDir);
  const raw = readJsonFile(file);
  if (raw === undefined) throw new FileContentError(file, 'does not exist (the control plane writes it on first start)');
  const parsed = demoTenantSchema.safeParse(raw);
  if (!parsed.success) throw new FileContentError(file, 'not a valid demo tenant file');
  return parsed.data;
}
