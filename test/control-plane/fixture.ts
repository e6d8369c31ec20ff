import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RequestListener } from 'node:http';
import { loadConfig, type DemoTenant } from '../../src/config';
import {
  createControlPlaneApp,
  createTenant,
  openControlPlaneStore,
  seedControlPlane,
  type ControlPlaneLocation,
  type ControlPlaneStore,
  type ControlPlaneStoreOptions,
} from '../../src/control-plane';
import { signedImagePushCheck, signingKeysExtension } from '../../src/signing-keys';
import { loadDirectorySeed, type DirectoryData } from '../../src/directory';
import { silentLogger } from '../../src/observability';
import { SQLITE_ENGINE, type SqlEngineUnderTest } from '../helpers/sql-engines';

const config = loadConfig({});

/** The real seed directory and policies folder of the repository. */
export const seedDirectory: DirectoryData = loadDirectorySeed(config.directorySeedFile).directory;
export const policiesDir = config.policiesDir;
export const URLS = { auth_url: 'http://idp.test', relay_url: 'http://relay.test', app_url: 'http://app.test' };

export const MORTY = 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e02';
export const RICK = 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01';

/**
 * A seeded control plane in a fresh temp dir (its store on `engine`, SQLite by default),
 * plus a second tenant "other" with one connection.
 */
export interface Fixture {
  readonly dir: string;
  /** Where the store lives, for a plain handle on its database (`openLocation`). */
  readonly location: ControlPlaneLocation;
  readonly store: ControlPlaneStore;
  readonly app: RequestListener;
  readonly demo: DemoTenant;
  readonly other: { tenantId: string; adminApiKey: string; discoveryApiKey: string; connectionId: string; connectionSecret: string };
  close(): Promise<void>;
}

export async function makeFixture(options: ControlPlaneStoreOptions = {}, engine: SqlEngineUnderTest = SQLITE_ENGINE): Promise<Fixture> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-cp-'));
  const location = await engine.location(dir);
  const store = await openControlPlaneStore(location, options);
  const demo = await seedControlPlane(store, { policiesDir, directorySeed: seedDirectory, dataDir: dir, urls: URLS });
  if (!demo) throw new Error('expected a fresh seed');
  const keys = await createTenant(store, { name: 'other', directory: { roles: seedDirectory.roles, users: [], resources: [] } });
  const conn = await store.tenants.addConnection(keys.tenantId, 'rbac');
  return {
    dir,
    location,
    store,
    app: createControlPlaneApp({ store, logger: silentLogger(), pushCheck: signedImagePushCheck(), extensions: [signingKeysExtension(store)] }),
    demo,
    other: { ...keys, ...conn },
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headers for the admin API of a tenant. */
export function adminHeaders(tenantId: string, key: string): Record<string, string> {
  return { 'service-tenant-id': tenantId, authorization: `basic ${key}` };
}

/** `Authorization` for the edge API (RFC 7617). */
export function edgeAuth(connectionId: string, secret: string): string {
  return `Basic ${Buffer.from(`${connectionId}:${secret}`).toString('base64')}`;
}
