import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { loadConfig, writeDemoTenantFile } from '../../src/config';
import { startEdgeFromConfig } from '../../src/edge';
import { baseUrl } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { EXEC_PATH } from '../../src/relay';
import { startRelayKit } from '../relay/relay-kit';
import { removeDir, tempDir } from './edge-kit';

let dir: string;

beforeEach(() => {
  dir = tempDir();
});

afterEach(() => removeDir(dir));

// Nothing listens on port 9 (discard): the control plane is "down".
const env = () => ({ OUTPOST_DATA_DIR: dir, EDGE_PORT: '0', RELAY_URL: 'http://127.0.0.1:9', AUTH_URL: 'http://127.0.0.1:9' });

describe('startEdgeFromConfig', () => {
  it('reads the demo tenant file, keeps its data in <dataDir>/edge and listens, even with the control plane down', async () => {
    writeDemoTenantFile(dir, {
      tenant_id: 't1',
      discovery_api_key: 'k1',
      admin_api_key: 'a1',
      connection_id: 'c1',
      connection_secret: 's1',
      auth_url: 'http://127.0.0.1:9',
      relay_url: 'http://127.0.0.1:9',
      app_url: 'http://127.0.0.1:9',
    });
    const { edge, server, stop } = await startEdgeFromConfig(loadConfig(env()), silentLogger());
    try {
      await request(baseUrl(server)).get('/readyz').expect(503, { status: 'not_ready', policy: false, directory: false });
      const again = JSON.parse(readFileSync(join(dir, 'edge', 'instance.json'), 'utf8')) as { instance_id: string };
      expect(again.instance_id).toBe(edge.instanceId);
    } finally {
      await stop();
    }
  });

  it('uses EDGE_CONNECTION_ID/SECRET; with neither them nor the file it names both ways out', async () => {
    await expect(startEdgeFromConfig(loadConfig(env()), silentLogger())).rejects.toThrow(
      /^no edge connection credentials: set EDGE_CONNECTION_ID and EDGE_CONNECTION_SECRET, or start the control plane first/,
    );
    const config = loadConfig({ ...env(), EDGE_CONNECTION_ID: 'c2', EDGE_CONNECTION_SECRET: 's2' });
    const { stop } = await startEdgeFromConfig(config, silentLogger());
    await stop();
  });
});

describe('startEdgeFromConfig and the relay', () => {
  it('binds its port before dialling the relay: a second edge on the same data dir fails on the port and never replaces the live session', async () => {
    const kit = await startRelayKit();
    let upgrades = 0;
    kit.server.on('upgrade', () => (upgrades += 1));
    const creds = { EDGE_CONNECTION_ID: kit.a.connectionId, EDGE_CONNECTION_SECRET: kit.a.secret };
    const first = await startEdgeFromConfig(loadConfig({ ...env(), ...creds, RELAY_URL: kit.url }), silentLogger());
    try {
      await waitFor(() => first.edge.relayConnected);
      const port = String((first.server.address() as AddressInfo).port);
      await expect(startEdgeFromConfig(loadConfig({ ...env(), ...creds, RELAY_URL: kit.url, EDGE_PORT: port }), silentLogger())).rejects.toMatchObject({ code: 'EADDRINUSE' });
      // A full exec round trip gives a stray dial from the second edge time to arrive; none did.
      const res = await kit.call(EXEC_PATH, { body: { id: first.edge.instanceId, command: { discovery: {} } } });
      // The first edge answered (502: this tenant has no policy image to discover yet).
      expect(res.status).toBe(502);
      expect(upgrades).toBe(1);
      expect(first.edge.relayConnected).toBe(true);
    } finally {
      await first.stop();
      await kit.stop();
    }
  });
});

describe('one edge per data directory', () => {
  it('refuses a second edge on the same data directory (another port), which never dials; the first keeps its session', async () => {
    const kit = await startRelayKit();
    let upgrades = 0;
    kit.server.on('upgrade', () => (upgrades += 1));
    const creds = { EDGE_CONNECTION_ID: kit.a.connectionId, EDGE_CONNECTION_SECRET: kit.a.secret };
    const first = await startEdgeFromConfig(loadConfig({ ...env(), ...creds, RELAY_URL: kit.url }), silentLogger());
    try {
      await waitFor(() => first.edge.relayConnected);
      // Stopped at once should it start anyway, so a missing guard fails this test rather than hangs it.
      const refusal = await startEdgeFromConfig(loadConfig({ ...env(), ...creds, RELAY_URL: kit.url, EDGE_PORT: '0' }), silentLogger()).then(
        async (second) => {
          await second.stop();
          return new Error('a second edge started on the same data directory');
        },
        (err: Error) => err,
      );
      expect(refusal.message).toMatch(/another edge is using .*edge \(.*edge\.lock: held by process \d+, which is still running\)/);
      const res = await kit.call(EXEC_PATH, { body: { id: first.edge.instanceId, command: { discovery: {} } } });
      expect(res.status).toBe(502); // the first edge answered: no image for this tenant yet
      expect(upgrades).toBe(1);
    } finally {
      await first.stop();
    }
    // Released on stop: the directory can be used again.
    const again = await startEdgeFromConfig(loadConfig({ ...env(), ...creds, RELAY_URL: kit.url }), silentLogger());
    await again.stop();
    await kit.stop();
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i += 1) await new Promise((resolve) => setImmediate(resolve));
  if (!check()) throw new Error('condition not reached');
}
