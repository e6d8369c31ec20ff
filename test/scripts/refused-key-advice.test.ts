import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { loadConfig, writeDemoTenantFile } from '../../src/config';
import { baseUrl, close, listen } from '../../src/http';
import { callTenantApi } from '../../scripts/lib/call-tenant-api';
import { loadTenantCredentials } from '../../scripts/lib/tenant-credentials';
import { makeFixture, type Fixture } from '../control-plane/fixture';

// The scripts' answer to a refused demo-tenant.json key when the running stack is another one (the admin API's 401 here;
// the relay's is worded the same, test/integration/demo-key-rotation.test.ts).
describe('a 401 for the demo tenant file', () => {
  let fx: Fixture;
  let server: Server;
  beforeAll(async () => {
    fx = await makeFixture();
    server = await listen(fx.app, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await close(server);
    await fx.close();
  });

  it("points at the other folder's demo tenant when the running stack is that one (a PostgreSQL stack's)", async () => {
    // The SQLite stack's folder holds a file of a tenant this control plane does not have; beside it, its own.
    const sqliteDir = join(fx.dir, 'sqlite-stack');
    writeDemoTenantFile(sqliteDir, { ...fx.demo, tenant_id: 'sqlite-tenant', control_plane: undefined });
    const postgresDir = join(sqliteDir, 'postgres');
    mkdirSync(postgresDir);
    writeDemoTenantFile(postgresDir, fx.demo);
    const creds = loadTenantCredentials(loadConfig({ OUTPOST_DATA_DIR: sqliteDir, RELAY_URL: baseUrl(server) }), 'admin');
    const refused = callTenantApi(creds, { method: 'GET', path: '/api/v2/admin/directory' });
    await expect(refused).rejects.toThrow(`tenant sqlite-tenant or its admin key from ${join(sqliteDir, 'demo-tenant.json')} was refused`);
    await expect(refused).rejects.toThrow(
      `${join(postgresDir, 'demo-tenant.json')} holds another demo tenant (${fx.demo.tenant_id}); if the running stack is that one ` +
        `(a stack started with DATABASE_URL keeps its own in postgres/), export OUTPOST_DATA_DIR=${postgresDir}.`,
    );
    await expect(refused).rejects.not.toThrow(fx.demo.admin_api_key);
    // And from the PostgreSQL folder, when the running stack is the SQLite one: the folder above.
    const wrongWay = loadTenantCredentials(loadConfig({ OUTPOST_DATA_DIR: postgresDir, RELAY_URL: baseUrl(server) }), 'admin');
    const stale = { ...wrongWay, key: 'ak_stale' };
    await expect(callTenantApi(stale, { method: 'GET', path: '/api/v2/admin/directory' })).rejects.toThrow(`holds another demo tenant (sqlite-tenant); if the running stack is that one`);
  });
});
