import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { openIdp } from '../../src/idp';
import { silentLogger } from '../../src/observability';
import { findPortConflicts, isPortFree } from '../../src/stack/check-ports';
import { stackComponents } from '../../src/stack/components';

function listenOnFreePort(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

const closeServer = (server: Server) => new Promise((resolve) => server.close(resolve));

function idpComponentOn(port: number, dataDir: string) {
  const config = loadConfig({ IDP_PORT: String(port), OUTPOST_DATA_DIR: dataDir });
  return { config, components: stackComponents(config).filter((c) => c.name === 'idp') };
}

describe('port check before start', () => {
  let dataDir: string;
  const servers: Server[] = [];
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'outpost-ports-'));
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map(closeServer));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says nothing when the port is free', async () => {
    const server = createServer();
    const port = await listenOnFreePort(server);
    await closeServer(server);
    expect(await isPortFree('127.0.0.1', port)).toBe(true);
    expect(await findPortConflicts(idpComponentOn(port, dataDir).components, '127.0.0.1')).toEqual([]);
  });

  it('names another program on the port and the variable that moves the component', async () => {
    const server = createServer((_req, res) => res.writeHead(404).end('not here'));
    servers.push(server);
    const port = await listenOnFreePort(server);
    expect(await findPortConflicts(idpComponentOn(port, dataDir).components, '127.0.0.1')).toEqual([
      `port ${port} is in use by another program (set IDP_PORT=… to move the IdP)`,
    ]);
  });

  it('says Outpost is already running when a real IdP answers on the port', async () => {
    const { config } = idpComponentOn(0, dataDir);
    const { app } = await openIdp(config, silentLogger());
    const server = createServer(app);
    servers.push(server);
    const port = await listenOnFreePort(server);
    const { components } = idpComponentOn(port, dataDir);
    expect(await findPortConflicts(components, '127.0.0.1')).toEqual([
      `Outpost is already running (http://localhost:${port} answers as the Outpost IdP); stop it first (Ctrl+C in its terminal)`,
    ]);
  });

  it('does not take a program that answers /healthz with {"status":"ok"} for an Outpost component', async () => {
    const server = createServer((_req, res) => res.end('{"status":"ok"}'));
    servers.push(server);
    const port = await listenOnFreePort(server);
    const [line] = await findPortConflicts(idpComponentOn(port, dataDir).components, '127.0.0.1');
    expect(line).toMatch(/^port \d+ is in use by another program/);
  });
});
