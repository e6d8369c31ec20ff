import { get, createServer as createHttpServer, type Server } from 'node:http';
import { createConnection, createServer, type AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { startRoundRobinFront, type RoundRobinFront } from '../../scripts/lib/round-robin-front';

const servers: Server[] = [];
let front: RoundRobinFront | undefined;

afterEach(async () => {
  await front?.close();
  front = undefined;
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** An HTTP server on a free loopback port that answers with its name. */
async function named(name: string): Promise<string> {
  const server = createHttpServer((_req, res) => res.end(name));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A loopback port nothing listens on. */
async function deadBackend(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `127.0.0.1:${port}`;
}

/** One GET on a fresh connection (no keep-alive), resolving with the body. */
function fetchOnce(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

describe('round-robin front', () => {
  it('sends each new connection to the next backend', async () => {
    front = await startRoundRobinFront({ backends: [await named('a'), await named('b')] });
    const answers: string[] = [];
    for (let i = 0; i < 4; i += 1) answers.push(await fetchOnce(front.url));
    expect(answers).toEqual(['a', 'b', 'a', 'b']);
  });

  it('skips a backend that refuses the connection, and drops the client when all do', async () => {
    front = await startRoundRobinFront({ backends: [await deadBackend(), await named('b')] });
    expect([await fetchOnce(front.url), await fetchOnce(front.url), await fetchOnce(front.url)]).toEqual(['b', 'b', 'b']);
    front.setBackends([await deadBackend()]);
    await expect(fetchOnce(front.url)).rejects.toThrow();
    front.setBackends([await named('c')]);
    await expect(fetchOnce(front.url)).resolves.toBe('c');
  });

  it('passes a WebSocket through, and close() ends it', async () => {
    const server = createHttpServer();
    servers.push(server);
    const wss = new WebSocketServer({ server });
    wss.on('connection', (ws) => ws.on('message', (data) => ws.send(`echo ${data.toString()}`)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    front = await startRoundRobinFront({ backends: [`127.0.0.1:${(server.address() as AddressInfo).port}`] });

    const ws = new WebSocket(front.url.replace('http:', 'ws:'));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const reply = new Promise<string>((resolve) => ws.once('message', (data) => resolve(data.toString())));
    ws.send('hello');
    await expect(reply).resolves.toBe('echo hello');

    const closed = new Promise<number>((resolve) => ws.once('close', resolve));
    await front.close();
    front = undefined;
    await expect(closed).resolves.toBe(1006);
    wss.close();
  });

  it('passes a half-close through: the backend may still answer after the client finished sending', async () => {
    const backend = createServer({ allowHalfOpen: true }, (socket) => {
      let got = '';
      socket.on('data', (chunk) => (got += chunk.toString()));
      socket.on('end', () => socket.end(`got ${got}`));
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    try {
      front = await startRoundRobinFront({ backends: [`127.0.0.1:${(backend.address() as AddressInfo).port}`] });
      const client = createConnection({ host: '127.0.0.1', port: front.port, allowHalfOpen: true });
      let answer = '';
      client.on('data', (chunk) => (answer += chunk.toString()));
      const ended = new Promise((resolve) => client.once('end', resolve));
      client.end('request');
      await ended;
      expect(answer).toBe('got request');
      client.destroy();
    } finally {
      await front?.close();
      front = undefined;
      await new Promise((resolve) => backend.close(resolve));
    }
  });

  it('survives either side dying mid-connection', async () => {
    const backend = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    try {
      front = await startRoundRobinFront({ backends: [`127.0.0.1:${(backend.address() as AddressInfo).port}`] });
      // The backend drops the connection at once: the client sees its end, the front lives on.
      const client = createConnection({ host: '127.0.0.1', port: front.port });
      client.on('error', () => undefined);
      await new Promise((resolve) => client.once('close', resolve));
      // A client that vanishes while its backend is being dialled changes nothing either.
      createConnection({ host: '127.0.0.1', port: front.port }).on('error', () => undefined).destroy();
      front.setBackends([await named('after')]);
      await expect(fetchOnce(front.url)).resolves.toBe('after');
    } finally {
      await new Promise((resolve) => backend.close(resolve));
    }
  });

  it('refuses a backend that is not host:port', async () => {
    await expect(startRoundRobinFront({ backends: ['localhost'] })).rejects.toThrow(/host:port/);
  });
});
