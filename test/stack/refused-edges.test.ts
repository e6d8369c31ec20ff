/**
 * `npm start` as a person runs it (dist/src/stack/main.js, as `npm start` runs it) on the state the issue's
 * reporter had: a data folder whose demo-tenant.json another control plane wrote over, with
 * the edges' last good state from that control plane on disk. Every edge then answers its
 * `/readyz` while the relay refuses it (401); the launcher used to print "Outpost is up"
 * anyway. Now it names each refused edge with the way out, stops everything and exits 1.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';
import { demoTenantPath, findProjectRoot, loadConfig, readDemoTenantFile } from '../../src/config';
import { describeControlPlaneLocation, openControlPlaneStore, seedControlPlane } from '../../src/control-plane';
import { loadDirectorySeed } from '../../src/directory';
import { startEdgeNode } from '../integration/edge-node';
import { startStack } from '../integration/stack-fixture';
import { isPortFree } from '../../src/stack/check-ports';
import { stopLauncher } from './process-tree';
import { compiled } from '../helpers/compiled';

const RUN_TIMEOUT_MS = 120_000;

describe('npm start with edges the relay refuses', () => {
  const root = findProjectRoot();
  let dataDir: string;
  let launcher: ChildProcess | undefined;
  let exited: Promise<number | null>;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-refused-'));
    // This folder's own SQLite control plane, seeded as a first npm start would.
    const config = loadConfig({ OUTPOST_DATA_DIR: dataDir });
    const location = join(dataDir, 'control-plane.db');
    const store = await openControlPlaneStore(location);
    await seedControlPlane(store, {
      policiesDir: config.policiesDir,
      directorySeed: loadDirectorySeed(config.directorySeedFile).directory,
      dataDir,
      urls: { auth_url: config.idp.url, relay_url: config.controlPlane.url, app_url: 'http://localhost:3001' },
      database: describeControlPlaneLocation(location),
    });
    await store.close();
    // Another control plane, whose edges ran on this folder and left their last good state in it.
    const other = await startStack();
    try {
      // The sidecar's, and each app's of apps.json (the samples and any `npm run new-app` added).
      const theirs = readDemoTenantFile(other.dataDir).app_connections!;
      const edges = [
        { dir: 'edge', credentials: other.demo },
        ...config.apps.list.map((app) => ({
          dir: join('embedded', app.name),
          credentials: { connectionId: theirs[app.connection]!.connection_id, connectionSecret: theirs[app.connection]!.connection_secret },
        })),
      ];
      for (const { dir, credentials } of edges) {
        const jwt = { issuer: other.idp.issuer, jwksUri: other.idp.jwksUri, audience: other.idp.audience };
        const edge = await startEdgeNode({ relayUrl: other.relayUrl, credentials, dataDir: join(dataDir, dir), hostname: dir, jwt });
        await edge.stop();
      }
      // And wrote its demo tenant over this folder's.
      copyFileSync(demoTenantPath(other.dataDir), demoTenantPath(dataDir));
    } finally {
      await other.close();
    }
  }, 60_000);

  afterAll(async () => {
    await stopLauncher(launcher, exited, 10_000);
    rmSync(dataDir, { recursive: true, force: true });
  }, 20_000);

  it('does not claim "up": it names every refused edge with the way out, stops everything and exits 1', async () => {
    const apps = loadConfig({}).apps.list;
    const ports: Record<string, number> = {};
    for (const name of ['IDP_PORT', 'CONTROL_PLANE_PORT', 'EDGE_PORT', ...apps.map((app) => app.vars.port)]) ports[name] = await freePort();
    launcher = spawn(process.execPath, [compiled('src/stack/main.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', OUTPOST_DATA_DIR: dataDir, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const child = launcher;
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));

    // The old launcher said "Outpost is up" and kept running: that ends the wait too.
    const up = new Promise<string>((resolve) => child.stdout!.on('data', () => /Outpost is up/.test(output) && resolve('printed "Outpost is up"')));
    expect(await Promise.race([exited, up])).toBe(1);
    // Each edge was ready on its last good state: the start got as far as the registration check.
    expect(output).toMatch(/starting edge authorizer … ready\n/);
    expect(output).toMatch(/starting todo app … ready\n/);
    expect(output).toContain('waiting for every edge to register with the relay … failed\nOutpost is not up: not every edge is registered with the relay. Stopping.\n');
    const foreign = readDemoTenantFile(dataDir);
    const file = demoTenantPath(dataDir);
    expect(output).toContain(`  - the edge authorizer (sidecar) is refused by the control plane (401): its connection ${foreign.connection_id}, from ${file}, is unknown to it or its secret is wrong.\n`);
    for (const app of apps) {
      expect(output).toContain(`  - the ${app.label}'s embedded edge is refused by the control plane (401): its connection ${foreign.app_connections![app.connection]!.connection_id}, from ${file}`);
    }
    expect(output).toContain(`  - ${file} does not belong to the SQLite control plane (${dataDir}) (it names tenant ${foreign.tenant_id}; it was written for the SQLite control plane (`);
    expect(output).toContain(`or move ${dataDir} aside (mv ${dataDir} ${dataDir}.old) and start again: the control plane then seeds a new demo tenant.`);
    expect(output).not.toContain('Outpost is up');
    // Stopped and waited for before the launcher exited: every port is free again.
    for (const port of Object.values(ports)) expect(await isPortFree('127.0.0.1', port)).toBe(true);
  }, RUN_TIMEOUT_MS);
});
