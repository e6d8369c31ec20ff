import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import request from 'supertest';
import { loadConfig, writeDemoTenantFile } from '../../src/config';
import { startEdgeFromConfig } from '../../src/sidecar';
import { baseUrl } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { EXEC_PATH } from '../../src/relay';
import { startRelayKit } from '../relay/relay-kit';
import { removeDir, tempDir } from './edge-kit';
import { waitUntil } from '../helpers/wait-for';

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

/**
 * Starts one edge connected to a relay, then tries a second one on the same data directory
 * with `secondEnv` on top. Returns how the second attempt ended (an edge that starts anyway
 * is stopped at once, so a missing guard fails the test instead of hanging it), the status
 * of an exec to the first edge afterwards, and how many WebSocket upgrades the relay saw.
 */
async function secondEdgeOnSameDirectory(secondEnv: (firstPort: string) => Record<string, string>) {
  const kit = await startRelayKit();
  let upgrades = 0;
  kit.server.on('upgrade', () => (upgrades += 1));
  const base = { ...env(), EDGE_CONNECTION_ID: kit.a.connectionId, EDGE_CONNECTION_SECRET: kit.a.secret, RELAY_URL: kit.url };
  const first = await startEdgeFromConfig(loadConfig(base), silentLogger());
  try {
    await waitUntil('the edge is connected to the relay', () => first.edge.relayConnected);
    const port = String((first.server.address() as AddressInfo).port);
    const refusal = await startEdgeFromConfig(loadConfig({ ...base, ...secondEnv(port) }), silentLogger()).then(
      async (second) => {
        await second.stop();
        return new Error('a second edge started on the same data directory') as NodeJS.ErrnoException;
      },
      (err: NodeJS.ErrnoException) => err,
    );
    // A full exec round trip gives a stray dial from the second edge time to arrive.
    const exec = await kit.call(EXEC_PATH, { body: { id: first.edge.instanceId, command: { discovery: {} } } });
    return { refusal, execStatus: exec.status, upgrades, firstConnected: first.edge.relayConnected, reuse: () => startEdgeFromConfig(loadConfig(base), silentLogger()) };
  } finally {
    await first.stop();
    await kit.stop();
  }
}

describe('one edge per data directory', () => {
  it('binds its port before dialling the relay: a second edge on the same port fails on it and never replaces the live session', async () => {
    const result = await secondEdgeOnSameDirectory((port) => ({ EDGE_PORT: port }));
    expect(result.refusal.code).toBe('EADDRINUSE');
    // The first edge answered (502: this tenant has no policy image to discover yet), over the only upgrade.
    expect(result).toMatchObject({ execStatus: 502, upgrades: 1, firstConnected: true });
  });

  it('refuses a second edge on another port too (the data directory lock), which never dials; the lock goes with the first edge', async () => {
    const result = await secondEdgeOnSameDirectory(() => ({ EDGE_PORT: '0' }));
    expect(result.refusal.message).toMatch(/^another edge is using (\S+edge) \(\1: lock @outpost-edge-[0-9a-f]{64} is held by a running process\); give each edge its own data directory$/);
    expect(result).toMatchObject({ execStatus: 502, upgrades: 1, firstConnected: true });
    // Released on stop: the directory can be used again (the relay is gone; the edge starts anyway).
    const again = await result.reuse();
    await again.stop();
  });
});
