import type { Server, ServerResponse } from 'node:http';
import { ControlPlaneError, createControlPlaneClient } from '../../src/edge/control-plane-client';
import { baseUrl, close, listen } from '../../src/http';

const CREDENTIALS = { connectionId: 'c1', connectionSecret: 's1' };
const LIMIT = 1024;

describe('control-plane client response size cap', () => {
  let server: Server;
  let handler: (res: ServerResponse) => void;
  beforeEach(async () => {
    server = await listen((_req, res) => handler(res), 0, '127.0.0.1');
  });
  afterEach(async () => {
    server.closeAllConnections();
    await close(server);
  });

  const client = () => createControlPlaneClient({ relayUrl: baseUrl(server), credentials: CREDENTIALS, maxResponseBytes: LIMIT });
  const tooLarge = (what: string) => new ControlPlaneError('response_too_large', `${what}: response is larger than ${LIMIT} bytes`);

  it('refuses a body whose Content-Length is over the cap without reading it', async () => {
    handler = (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(LIMIT + 1) }).end('x'.repeat(LIMIT + 1));
    await expect(client().getDirectory()).rejects.toEqual(tooLarge('directory'));
  });

  it('stops reading a chunked body (no Content-Length) once it passes the cap', async () => {
    handler = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 64; i += 1) res.write(`[${'1,'.repeat(256)}`);
      res.end();
    };
    await expect(client().getPolicyImage(undefined)).rejects.toEqual(tooLarge('policy image'));
  });

  it('caps error bodies too, and still reads a body at the cap', async () => {
    handler = (res) => res.writeHead(500, { 'content-type': 'application/json' }).end(' '.repeat(LIMIT + 10));
    await expect(client().getDirectoryChanges(0)).rejects.toEqual(tooLarge('directory changes'));
    const body = JSON.stringify({ revision: 2, changes: [] });
    handler = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body.padEnd(LIMIT, ' '));
    await expect(client().getDirectoryChanges(0)).resolves.toEqual({ status: 'changes', revision: 2, changes: [] });
  });
});
