import { join } from 'node:path';
import type { Server } from 'node:http';
import { baseUrl, close, listen } from '../../src/http';
import { callTenantApi } from '../../scripts/lib/call-tenant-api';
import { loadConfig } from '../../src/config';
import { ScriptError } from '../../scripts/lib/script-error';
import { loadTenantCredentials } from '../../scripts/lib/tenant-credentials';
import { makeFixture, type Fixture } from './fixture';

describe('script helpers (scripts/lib)', () => {
  let fx: Fixture;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    fx = await makeFixture();
    server = await listen(fx.app, 0, '127.0.0.1');
    url = baseUrl(server);
  });
  afterAll(async () => {
    await close(server);
    fx.close();
  });

  const load = (env: Record<string, string>, kind: 'admin' | 'discovery' = 'admin', dataDir = fx.dir) =>
    loadTenantCredentials(loadConfig({ ...env, OUTPOST_DATA_DIR: dataDir, RELAY_URL: url }), kind);

  it('reads demo-tenant.json, or the environment when both variables are set', async () => {
    expect(load({})).toEqual({ relayUrl: url, tenantId: fx.demo.tenant_id, key: fx.demo.admin_api_key, source: `${fx.dir}/demo-tenant.json` });
    expect(load({}, 'discovery').key).toBe(fx.demo.discovery_api_key);
    expect(load({ OUTPOST_TENANT_ID: 't', OUTPOST_ADMIN_API_KEY: 'k' })).toEqual({ relayUrl: url, tenantId: 't', key: 'k', source: 'environment' });
    expect(() => load({ OUTPOST_TENANT_ID: 't' })).toThrow(/set both OUTPOST_TENANT_ID and OUTPOST_ADMIN_API_KEY/);
    expect(() => load({}, 'admin', `${fx.dir}/none`)).toThrow(ScriptError);
  });

  it("looks for a PostgreSQL stack's demo tenant where that stack keeps it: the same DATABASE_URL finds the same file", () => {
    const withUrl = loadConfig({ DATABASE_URL: 'postgres://outpost@127.0.0.1:5432/outpost', RELAY_URL: url });
    expect(withUrl.dataDir).toBe(join(loadConfig({}).dataDir, 'postgres'));
    // The repository's own folder: read when a PostgreSQL stack ran here, else named in the error.
    let where: string;
    try {
      where = loadTenantCredentials(withUrl, 'discovery').source;
    } catch (err) {
      where = (err as Error).message;
    }
    expect(where).toContain(join(withUrl.dataDir, 'demo-tenant.json'));
  });

  it('calls the admin API and explains each failure in one line', async () => {
    const creds = load({});
    const ok = await callTenantApi<{ revision: number }>(creds, { method: 'PUT', path: '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin' });
    expect(ok).toEqual({ status: 200, body: { revision: 2 } });
    await expect(callTenantApi(creds, { method: 'PUT', path: '/api/v2/admin/directory/users/x@y.z/roles/admin' })).rejects.toThrow(
      new ScriptError('404 unknown_user: unknown user x@y.z'),
    );
    const wrong = { ...creds, key: 'ak_wrong', source: 'environment' };
    const refused = callTenantApi(wrong, { method: 'GET', path: '/api/v2/admin/directory' });
    await expect(refused).rejects.toThrow(
      `401 unauthorized: missing or invalid tenant credentials — OUTPOST_TENANT_ID and OUTPOST_ADMIN_API_KEY from the environment were refused by the control plane at ${url}: ` +
        "they must be one tenant's id and its current admin key (a rotation replaces it at once); or unset both to use demo-tenant.json.",
    );
    await expect(refused).rejects.not.toThrow(/ak_wrong/);
    const down = { ...creds, relayUrl: 'http://127.0.0.1:9' };
    await expect(callTenantApi(down, { method: 'GET', path: '/api/v2/admin/directory' })).rejects.toThrow(/cannot reach the control plane at http:\/\/127\.0\.0\.1:9/);
  });
});
