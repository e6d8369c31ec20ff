import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoTenantPath, readDemoTenantFile, writeDemoTenantFile, type DemoTenant } from '../../src/config';

const demo: DemoTenant = {
  tenant_id: 't1', discovery_api_key: 'd', admin_api_key: 'a', connection_id: 'c', connection_secret: 's',
  auth_url: 'http://a', relay_url: 'http://r', app_url: 'http://p',
};

describe('demo-tenant.json', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'outpost-demo-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is written owner-only and read back', () => {
    const file = writeDemoTenantFile(dir, demo);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readDemoTenantFile(dir)).toEqual(demo);
  });

  it.each([
    [undefined, 'does not exist (the control plane writes it on first start)'],
    ['', 'empty'],
    ['{"tenant_id":', 'not valid JSON (ends too early)'],
    ['{"tenant_id":"t1"}', 'not a valid demo tenant file'],
  ])('names the file in every read error (%j)', (content, reason) => {
    const file = demoTenantPath(dir);
    if (content !== undefined) writeFileSync(file, content);
    expect(() => readDemoTenantFile(dir)).toThrow(`${file}: ${reason}`);
  });
});
