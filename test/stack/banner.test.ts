import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { banner } from '../../src/stack/banner';
import { stackComponents } from '../../src/stack/components';
import { entryFile } from '../../src/stack/run-component';

describe('stack launcher', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-banner-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts the components in dependency order, each with an entry file that exists', () => {
    const config = loadConfig({});
    const components = stackComponents(config);
    // The apps of apps.json after the edge, the two samples first (npm run new-app adds after them).
    expect(components.map((c) => c.name)).toEqual(['idp', 'control-plane', 'edge', ...config.apps.list.map((app) => `${app.name}-app`)]);
    expect(components.slice(3, 5).map((c) => c.name)).toEqual(['rbac-app', 'todo-app']);
    for (const c of components) expect(entryFile(c)).toMatch(new RegExp(`${c.entry}\\.ts$`));
    expect(components.find((c) => c.name === 'edge')?.readyPath).toBe('/readyz');
  });

  it('waits only for what each component needs at start: the control plane for the edge and the apps, the edge too under AUTHORIZER=edge', () => {
    const waits = (env: Record<string, string>) => Object.fromEntries(stackComponents(loadConfig(env)).map((c) => [c.name, c.waitsFor]));
    const apps = loadConfig({}).apps.list.map((app) => `${app.name}-app`);
    expect(waits({})).toEqual({ idp: undefined, 'control-plane': [], edge: ['control-plane'], ...Object.fromEntries(apps.map((a) => [a, ['control-plane']])) });
    expect(waits({ AUTHORIZER: 'edge' })).toMatchObject(Object.fromEntries(apps.map((a) => [a, ['control-plane', 'edge']])));
  });

  it('prints the URLs, the demo users with their roles, the demo tenant and what to try next', () => {
    const config = loadConfig({ OUTPOST_DATA_DIR: dataDir, APP_URL: 'http://localhost:4001' });
    const demo = {
      tenant_id: 'tenant-123', discovery_api_key: 'dk', admin_api_key: 'ak', connection_id: 'conn-456', connection_secret: 'cs',
      auth_url: 'http://localhost:5556', relay_url: 'http://localhost:8585', app_url: 'http://localhost:4001',
      app_connections: { rbac: { connection_id: 'conn-rbac', connection_secret: 's1' }, todo: { connection_id: 'conn-todo', connection_secret: 's2' } },
    };
    writeFileSync(join(dataDir, 'demo-tenant.json'), JSON.stringify(demo));
    const text = banner(config, stackComponents(config));
    expect(text).toContain('http://localhost:5556');
    expect(text).toContain('http://localhost:8585');
    expect(text).toMatch(/\n  console +http:\/\/localhost:8585\/console\/  \(sign in as rick@the-citadel\.com/);
    expect(text).toMatch(/rick@the-citadel\.com\s+Rick Sanchez\s+admin, evil_genius/);
    expect(text).toMatch(/jerry@the-smiths\.com\s+Jerry Smith\s+viewer/);
    expect(text).toContain('password for all: V@erySecre#t123!');
    expect(text).toMatch(/Demo tenant\s+tenant-123\n\s+edge connections: sidecar conn-456, RBAC app conn-rbac, todo app conn-todo/);
    expect(text).toContain('the apps decide with: an edge embedded in each app');
    expect(text).not.toContain('Registered with the relay');
    const checked = banner(config, stackComponents(config), ['the edge authorizer (sidecar)', "the RBAC app's embedded edge"]);
    expect(checked).toContain("\nRegistered with the relay: the edge authorizer (sidecar), the RBAC app's embedded edge\n");
    expect(text).not.toMatch(/\bdk\b|\bak\b|\bs1\b/); // ids only, never a key or secret
    expect(text).toContain(join(dataDir, 'demo-tenant.json'));
    expect(text).toContain('curl -i -X DELETE http://localhost:4001/resource/mega-seed');
    expect(text).toContain('npm run try-delete');
    expect(text).toContain('npm run demo');
    expect(text).toContain(`Logs: ${join(dataDir, 'logs')}/<component>.log\nA component that dies is restarted (at most 5 times a minute) and reported here with its log.\n`);
  });

  it('names the state folder in use, and how the scripts find a PostgreSQL stack\'s', () => {
    const chosen = banner(loadConfig({ OUTPOST_DATA_DIR: dataDir }), []);
    expect(chosen).toContain(`State folder: ${dataDir}  (OUTPOST_DATA_DIR; the scripts need the same)`);
    const sqlite = loadConfig({});
    expect(banner(sqlite, [])).toContain(`State folder: .data  (the SQLite control plane's; started with DATABASE_URL the stack uses ${join('.data', 'postgres')} instead)`);
    const postgres = banner(loadConfig({ DATABASE_URL: 'postgres://outpost@127.0.0.1:5432/outpost' }), []);
    expect(postgres).toContain(`State folder: ${join('.data', 'postgres')}  (DATABASE_URL is set: this PostgreSQL stack's demo tenant, IdP keys and logs stay apart from the SQLite stack's;`);
    expect(postgres).toContain(`export OUTPOST_DATA_DIR=${join('.data', 'postgres')}, before npm run …`);
    expect(postgres).toContain(`Logs: ${join('.data', 'postgres', 'logs')}/<component>.log`);
  });

  it('suggests only what the started components support', () => {
    const config = loadConfig({ OUTPOST_DATA_DIR: dataDir });
    const idpOnly = stackComponents(config).filter((c) => c.name === 'idp');
    const text = banner(config, idpOnly);
    expect(text).toContain('npm run -s token -- rick@the-citadel.com');
    expect(text).not.toContain('try-delete');
    expect(text).not.toContain('npm run demo');
    expect(text).not.toContain('Demo tenant');
    expect(text).not.toContain('/console/');
  });
});
