/**
 * Rotating the demo tenant's keys keeps the scripts working (issue 19): the control plane that
 * seeded `demo-tenant.json` writes the new key into it, from the console and from
 * `npm run tenants -- rotate-key`, on each engine; a key rotated where the file is not kept in
 * step leaves the scripts saying exactly which variables to set.
 */
import { execFile } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DEMO_TENANT_FILE, loadConfig, readDemoTenantFile } from '../../src/config';
import { createTenant } from '../../src/control-plane';
import { callTenantApi } from '../../scripts/lib/call-tenant-api';
import { findInstanceId, listInstanceRegistrations } from '../../scripts/lib/relay-client';
import { loadTenantCredentials } from '../../scripts/lib/tenant-credentials';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { listRegistrations } from './stack-client';
import { consoleToken, startStack, type Stack } from './stack-fixture';
import { compiled } from '../helpers/compiled';

const RICK = 'rick@the-citadel.com';
const RICK_ID = 'c8c8a5d4-3f1e-4b7a-9d1e-0a1b2c3d4e01';
const tenantsScript = compiled('scripts/tenants.ts');

describe.each(SQL_ENGINES)('rotating the demo tenant\'s keys on $name', (engine) => {
  let stack: Stack;
  let token: string;
  beforeAll(async () => {
    stack = await startStack(engine);
    token = await consoleToken(stack, RICK);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const rotateInConsole = async (tenantId: string) => {
    const res = await fetch(`${stack.relayUrl}/console/api/tenants/${tenantId}/discovery-key/rotate`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { discovery_api_key: string }).discovery_api_key;
  };
  /** What a script run in another terminal reads: this control plane's folder and URL. */
  const scriptConfig = (env: Record<string, string> = {}) => loadConfig({ OUTPOST_DATA_DIR: stack.dataDir, RELAY_URL: stack.relayUrl, ...env });
  const file = () => join(stack.dataDir, DEMO_TENANT_FILE);

  it('writes a Discovery API key rotated in the console into demo-tenant.json (0600, nothing else changed): the scripts keep working', async () => {
    const before = readDemoTenantFile(stack.dataDir);
    const key = await rotateInConsole(stack.demo.tenantId);
    expect(readDemoTenantFile(stack.dataDir)).toEqual({ ...before, discovery_api_key: key });
    expect(statSync(file()).mode & 0o777).toBe(0o600);
    expect((await listRegistrations(stack.relayUrl, stack.demo)).status).toBe(401); // the old key stopped at once
    const creds = loadTenantCredentials(scriptConfig(), 'discovery');
    expect(creds.key).toBe(key);
    expect(await findInstanceId(creds, stack.demo.connectionId)).toBe(stack.edge.instanceId);
  });

  it("leaves the file alone when another tenant's key rotates", async () => {
    const acme = await createTenant(stack.store, { name: 'acme', directory: { roles: [], users: [], resources: [] }, owner: RICK_ID });
    const before = readFileSync(file(), 'utf8');
    await rotateInConsole(acme.tenantId);
    expect(readFileSync(file(), 'utf8')).toBe(before);
  });

  it('writes a key rotated with npm run tenants -- rotate-key into the file, and says so', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, OUTPOST_DATA_DIR: stack.dataDir, LOG_LEVEL: 'silent' };
    if (typeof stack.controlPlaneLocation !== 'string') env.DATABASE_URL = stack.controlPlaneLocation.databaseUrl;
    const { stdout } = await promisify(execFile)(process.execPath, [tenantsScript, 'rotate-key', stack.demo.tenantId, 'admin'], { env });
    const key = /^admin_api_key=(\S+)$/m.exec(stdout)?.[1];
    expect(readDemoTenantFile(stack.dataDir).admin_api_key).toBe(key);
    expect(stdout).toContain(`${file()} has the new key too: the scripts go on working.`);
    const admin = loadTenantCredentials(scriptConfig(), 'admin');
    expect((await callTenantApi(admin, { method: 'GET', path: '/api/v2/admin/directory' })).status).toBe(200);
  }, 60_000);

  it('leaves the scripts a 401 that names both variables to set when a key is rotated where the file is not kept', async () => {
    // As a rotation by another control plane would: the database has a new key, the file the old one.
    const key = await stack.store.tenants.rotateKey(stack.demo.tenantId, 'discovery');
    const refused = listInstanceRegistrations(loadTenantCredentials(scriptConfig(), 'discovery'));
    await expect(refused).rejects.toThrow(
      `401 unauthorized: missing or invalid tenant credentials — tenant ${stack.demo.tenantId} or its Discovery API key from ${file()} was refused by the control plane at ${stack.relayUrl}. ` +
        `A rotation by this control plane (console, npm run tenants) rewrites that file; for a key rotated elsewhere set both OUTPOST_TENANT_ID=${stack.demo.tenantId} ` +
        'and OUTPOST_DISCOVERY_API_KEY=<the new key> (the file is used unless both are set).',
    );
    const told = loadTenantCredentials(scriptConfig({ OUTPOST_TENANT_ID: stack.demo.tenantId, OUTPOST_DISCOVERY_API_KEY: key }), 'discovery');
    expect(await findInstanceId(told, stack.demo.connectionId)).toBe(stack.edge.instanceId);
  });
});
