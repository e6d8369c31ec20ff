import { Agent, request as httpRequest, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Edge } from '../../src/sidecar';
import { close, listen } from '../../src/http';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

// Every answer of the sidecar's decision routes leaves in one socket write (status line,
// headers and body together): a second write per answer costs a decision a system call
// (issue 25; `npm run bench:peer` measures the routes' CPU per decision).

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let server: Server;
let rick: string;
/** Socket writes the server has made, over all its connections. */
let writes = 0;

beforeAll(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = await makeSyncedEdge(cp.url, dir));
  rick = userId(cp.directory, 'rick');
  server = await listen(edge.app, 0, '127.0.0.1');
  server.on('connection', (socket: Socket & { _write: (...a: unknown[]) => void; _writev: (...a: unknown[]) => void }) => {
    const write = socket._write.bind(socket);
    const writev = socket._writev.bind(socket);
    socket._write = (...a) => {
      writes += 1;
      write(...a);
    };
    socket._writev = (...a) => {
      writes += 1;
      writev(...a);
    };
  });
});

afterAll(async () => {
  await close(server);
  await edge.close();
  await cp.close();
  removeDir(dir);
});

/** POSTs `body` on one kept-alive connection; resolves to the status once the whole answer is in. */
function post(agent: Agent, path: string, body: string): Promise<number> {
  const { port } = server.address() as { port: number };
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const subject = () => ({ type: 'user', id: rick });
const resource = { type: 'Resource', id: 'mega-seed' };

describe('the sidecar writes each answer once', () => {
  it.each([
    ['an is decision', '/api/v2/authz/is', () => ({ identity_context: { type: 'SUB', identity: rick }, policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] }, resource_context: resource }), 200],
    ['an evaluation', '/access/v1/evaluation', () => ({ subject: subject(), action: { name: 'DELETE' }, resource }), 200],
    ['a batch', '/access/v1/evaluations', () => ({ subject: subject(), evaluations: [{ action: { name: 'GET' }, resource }, { action: { name: 'DELETE' }, resource }] }), 200],
    ['a refusal', '/access/v1/evaluation', () => ({ subject: subject() }), 400],
  ])('%s', async (_what, path, body, status) => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect(await post(agent, path, JSON.stringify(body()))).toBe(status);
      const before = writes;
      for (let i = 0; i < 5; i += 1) expect(await post(agent, path, JSON.stringify(body()))).toBe(status);
      expect(writes - before).toBe(5);
    } finally {
      agent.destroy();
    }
  });
});
