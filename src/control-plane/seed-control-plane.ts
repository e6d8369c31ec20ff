import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DirectoryData } from '../directory';
import { checkPolicyImage } from '../decision';
import { HttpError } from '../http';
import { readPolicyFolder, type PolicyImage } from '../policy';
import type { ControlPlaneRepositories, ControlPlaneStore } from './control-plane-store';
import { createTenant } from './create-tenant';
import { appConnectionLabel, projectApps, type DemoApp } from './demo-apps';
import { requirePushCheck, type ImagePushCheck } from './image-push-check';
import { DEMO_CONNECTION_LABELS } from './label-demo-connections';
import { refuseOtherEnginesDemoTenant, type DemoTenantDatabase } from './demo-tenant-database';
import { seedDemoAccounts } from './seed-demo-accounts';
import { findProjectRoot, readDemoTenantFile, writeDemoTenantFile, type DemoTenant } from '../config';

/** Name of the tenant created on first start. */
export const DEMO_TENANT_NAME = 'demo';

/** Policy served by the demo edge connection. */
export const DEMO_POLICY = 'rbac';

type AppConnections = NonNullable<DemoTenant['app_connections']>;

/**
 * Adds one connection per app to the tenant for its embedded edge, serving the app's own
 * policy and labelled with the app (inside the caller's transaction).
 */
async function addAppConnections(store: ControlPlaneRepositories, tenantId: string, apps: readonly DemoApp[]): Promise<AppConnections> {
  const entries: [string, { connection_id: string; connection_secret: string }][] = [];
  for (const app of apps) {
    const c = await store.tenants.addConnection(tenantId, app.policy, appConnectionLabel(app));
    entries.push([app.connection, { connection_id: c.connectionId, connection_secret: c.connectionSecret }]);
  }
  return Object.fromEntries(entries);
}

/** Inputs of the first-start seed. */
export interface SeedOptions {
  /** Folder with one sub-folder per policy; each is pushed as an image tagged `latest`. */
  readonly policiesDir: string;
  /** The demo tenant's first directory (the Citadel set). */
  readonly directorySeed: DirectoryData;
  /** Where `demo-tenant.json` is written. */
  readonly dataDir: string;
  /** The interface's placeholders, copied into `demo-tenant.json`. */
  readonly urls: { readonly auth_url: string; readonly relay_url: string; readonly app_url: string };
  /**
   * The store's database (`describeControlPlaneLocation`), recorded in `demo-tenant.json`; with
   * it, a file another engine's control plane wrote there is never overwritten.
   */
  readonly database?: DemoTenantDatabase;
  /** The apps whose embedded edges get a connection each; default those of the project's `apps.json`. */
  readonly apps?: readonly DemoApp[];
}

/**
 * Every policy folder as an image, compiled first and its own tests run, so a broken seed
 * policy (file:line) or one failing its tests (the failing cases named) stops start-up.
 */
function readSeedImages(policiesDir: string): PolicyImage[] {
  const folders = readdirSync(policiesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return folders.map((folder) => {
    const image = readPolicyFolder(join(policiesDir, folder));
    checkPolicyImage(image);
    return image;
  });
}

/**
 * First start: creates the demo tenant with its keys and members (and each demo user's
 * personal account), push on change turned on, one edge connection for the
 * sidecar (policy `rbac`) and one per app's embedded edge (`apps.json`), each labelled with what it
 * serves, every policy folder as an image and the seeded directory (revision 1), and
 * writes `<dataDir>/demo-tenant.json` (mode 0600) with the database it belongs to. All of it
 * happens in one transaction that also covers the file write, so a failure leaves nothing
 * half-made; another engine's file in that folder is refused first (`refuseOtherEnginesDemoTenant`).
 * Its images go to the tenant this same transaction creates, which has no signing keys yet,
 * so no push check is asked here (every later push is checked: `ImagePushCheck`).
 *
 * Returns the demo credentials for the caller to print once, or undefined when the store
 * already has tenants: later starts change nothing (the keys exist only as hashes then).
 */
export async function seedControlPlane(store: ControlPlaneStore, options: SeedOptions): Promise<DemoTenant | undefined> {
  if ((await store.tenants.list()).length > 0) return undefined;
  const images = readSeedImages(options.policiesDir);
  // Exclusive across nodes: several nodes starting at once on one empty PostgreSQL database
  // seed one after the other, and all but the first find a tenant and stop.
  return store.exclusiveTransaction(async (tx): Promise<DemoTenant | undefined> => {
    // Re-checked inside the transaction: another process may have seeded meanwhile.
    if ((await tx.tenants.list()).length > 0) return undefined;
    // Before anything is made: a refusal leaves the database empty, so a start in the right folder still seeds.
    if (options.database !== undefined) refuseOtherEnginesDemoTenant(options.dataDir, options.database);
    const { roles, users, resources } = options.directorySeed;
    const keys = await createTenant(tx, { name: DEMO_TENANT_NAME, directory: { roles, users, resources } });
    await seedDemoAccounts(tx, keys.tenantId, options.directorySeed);
    // The demo shows a change reaching the edges by itself (docs/reference/api.md, "Push on change").
    await tx.tenants.setPushOnChange(keys.tenantId, true);
    const connection = await tx.tenants.addConnection(keys.tenantId, DEMO_POLICY, DEMO_CONNECTION_LABELS.sidecar);
    const appConnections = await addAppConnections(tx, keys.tenantId, options.apps ?? projectApps());
    for (const image of images) await tx.images.push(keys.tenantId, image);
    const demo: DemoTenant = {
      tenant_id: keys.tenantId,
      discovery_api_key: keys.discoveryApiKey,
      admin_api_key: keys.adminApiKey,
      connection_id: connection.connectionId,
      connection_secret: connection.connectionSecret,
      auth_url: options.urls.auth_url,
      relay_url: options.urls.relay_url,
      app_url: options.urls.app_url,
      app_connections: appConnections,
      ...(options.database === undefined ? {} : { control_plane: options.database }),
    };
    mkdirSync(options.dataDir, { recursive: true });
    writeDemoTenantFile(options.dataDir, demo);
    return demo;
  });
}

/** What {@link ensureDemoAppConnections} serves. */
export interface DemoAppsOptions {
  /** The apps that need a connection; default those of the project's `apps.json`. */
  readonly apps?: readonly DemoApp[];
  /** Where an app's policy folder is read from when the tenant has no image of it yet; default the project's `policies/`. */
  readonly policiesDir?: string;
  /** Asked of each image before it is pushed, as the admin API asks it (required: see `ImagePushCheck`). */
  readonly pushCheck: ImagePushCheck;
}

/**
 * An app added to `apps.json` after the first start (or a data directory seeded before the
 * apps embedded an edge) has no connection: adds one per listed app the demo tenant file
 * lacks, and pushes the image of any of their policies the tenant has none of (compiled and
 * its tests run first, as at the seed; none that the push check refuses unsigned, such as for a
 * tenant with signing keys, whose folder sync then names the signed push to run), then rewrites `demo-tenant.json`, in one
 * transaction. Does nothing when the file is absent, lacks nothing, or names a tenant the
 * store lacks. Returns true when it added anything.
 */
export async function ensureDemoAppConnections(store: ControlPlaneStore, dataDir: string, options: DemoAppsOptions): Promise<boolean> {
  const pushCheck = requirePushCheck(options.pushCheck, 'ensureDemoAppConnections');
  const apps = options.apps ?? projectApps();
  let demo: DemoTenant;
  try {
    demo = readDemoTenantFile(dataDir);
  } catch {
    return false;
  }
  const lacking = (file: DemoTenant) => apps.filter((app) => file.app_connections?.[app.connection] === undefined);
  if (lacking(demo).length === 0 || !(await store.tenants.exists(demo.tenant_id))) return false;
  const images = await missingImages(store, demo.tenant_id, lacking(demo), options.policiesDir ?? join(findProjectRoot(), 'policies'), pushCheck);
  return store.exclusiveTransaction(async (tx) => {
    // Re-read under the lock: a node sharing this data directory may have added them meanwhile.
    const current = readDemoTenantFile(dataDir);
    const missing = lacking(current);
    if (missing.length === 0) return false;
    for (const image of images) if ((await tx.images.tagged(current.tenant_id, image.name)) === undefined) await tx.images.push(current.tenant_id, image);
    const added = await addAppConnections(tx, current.tenant_id, missing);
    writeDemoTenantFile(dataDir, { ...current, app_connections: { ...current.app_connections, ...added } });
    return true;
  });
}

/** Whether the push check takes `image` unsigned for the tenant; a refusal (an HttpError) is a no, anything else is thrown. */
async function acceptedUnsigned(pushCheck: ImagePushCheck, store: ControlPlaneStore, tenantId: string, image: PolicyImage): Promise<boolean> {
  try {
    await pushCheck.check({ tenantId, image, signature: undefined }, store);
    return true;
  } catch (err) {
    if (err instanceof HttpError) return false;
    throw err;
  }
}

/**
 * The checked images of the apps' policies the tenant has no image of, from their folders (a
 * missing folder is skipped: nothing to push; so is an image the push check refuses).
 */
async function missingImages(store: ControlPlaneStore, tenantId: string, apps: readonly DemoApp[], policiesDir: string, pushCheck: ImagePushCheck): Promise<PolicyImage[]> {
  const images: PolicyImage[] = [];
  for (const policy of new Set(apps.map((app) => app.policy))) {
    const folder = join(policiesDir, policy);
    if ((await store.images.tagged(tenantId, policy)) !== undefined || !existsSync(folder)) continue;
    const image = readPolicyFolder(folder);
    // Asked before Cedar sees the image's text, as on a push.
    if (!(await acceptedUnsigned(pushCheck, store, tenantId, image))) continue;
    checkPolicyImage(image);
    images.push(image);
  }
  return images;
}
