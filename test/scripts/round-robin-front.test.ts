import { spawn, type ChildProcess } from 'node:child_process';
import { get, createServer as createHttpServer, request, type Server } from 'node:http';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { freePort } from '../../scripts/lib/free-port';
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
  return `127.0.0.1:${await freePort()}`;
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

/** The exact answer the front gives when its node dies before answering. */
const BAD_GATEWAY_BODY = { code: 'bad_gateway', message: 'the node closed the connection before answering; the request may or may not have taken effect' };

/** A POST through the front on a fresh connection: status, headers and body, or the socket error. */
function post(url: string): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end('{"id":"x","command":{"discovery":{}}}');
  });
}

/** A backend that accepts raw TCP and does `onData` with the first bytes it reads. */
async function rawBackend(onData: (socket: Socket) => void): Promise<{ address: string; close(): Promise<void> }> {
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => onData(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('round-robin front: a node that dies before answering', () => {
  let node: ChildProcess | undefined;
  afterEach(() => {
    node?.kill('SIGKILL');
    node = undefined;
  });

  it('answers 502 with the error contract when its node is SIGKILLed mid-request', async () => {
    // A real process that dies, as a cluster node killed mid-exec does, the moment a request arrives.
    node = spawn(process.execPath, ['-e', "require('http').createServer(() => process.kill(process.pid, 'SIGKILL')).listen(0, '127.0.0.1', function () { console.log(this.address().port) })"], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<string>((resolve) => node!.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
    front = await startRoundRobinFront({ backends: [`127.0.0.1:${port}`] });
    const res = await post(`${front.url}/api/v2/management/control_plane/exec`);
    expect(res.status).toBe(502);
    expect(res.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close', 'cache-control': 'no-store' });
    expect(JSON.parse(res.body)).toEqual(BAD_GATEWAY_BODY);
  });

  it.each([
    ['resets the connection', (socket: Socket) => socket.resetAndDestroy()],
    ['closes it cleanly', (socket: Socket) => socket.end()],
  ])('answers 502 when the node %s after reading the request and before a byte of answer', async (_label, die) => {
    const backend = await rawBackend(die);
    try {
      front = await startRoundRobinFront({ backends: [backend.address] });
      const res = await post(front.url);
      expect({ status: res.status, body: JSON.parse(res.body) as unknown }).toEqual({ status: 502, body: BAD_GATEWAY_BODY });
    } finally {
      await front?.close();
      front = undefined;
      await backend.close();
    }
  });

  it('passes a half-sent answer through as it is and only closes: a 502 cannot follow bytes already sent', async () => {
    const backend = await rawBackend((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
      setImmediate(() => socket.resetAndDestroy());
    });
    try {
      front = await startRoundRobinFront({ backends: [backend.address] });
      const client = createConnection({ host: '127.0.0.1', port: front.port });
      let received = '';
      client.on('data', (chunk: Buffer) => (received += chunk.toString()));
      client.on('error', () => undefined);
      const closed = new Promise((resolve) => client.once('close', resolve));
      client.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n\r\n');
      await closed;
      expect(received).toBe('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
    } finally {
      await front?.close();
      front = undefined;
      await backend.close();
    }
  });

  it('drops a later request on a kept-alive connection without a 502 (the limit: the front does not parse HTTP)', async () => {
    let requests = 0;
    const backend = await rawBackend(function answer(socket) {
      requests += 1;
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
      // The second request on the same connection finds the node dead.
      socket.once('data', () => socket.resetAndDestroy());
    });
    try {
      front = await startRoundRobinFront({ backends: [backend.address] });
      const client = createConnection({ host: '127.0.0.1', port: front.port });
      let received = '';
      client.on('error', () => undefined);
      const closed = new Promise((resolve) => client.once('close', resolve));
      const first = new Promise<void>((resolve) =>
        client.on('data', (chunk: Buffer) => {
          received += chunk.toString();
          if (received.endsWith('ok')) resolve();
        }),
      );
      client.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
      await first;
      client.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n');
      await closed;
      expect({ requests, received }).toEqual({ requests: 1, received: 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok' });
    } finally {
      await front?.close();
      front = undefined;
      await backend.close();
    }
  });

  it('sends nothing to a client that asked nothing', async () => {
    const backend = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    try {
      front = await startRoundRobinFront({ backends: [`127.0.0.1:${(backend.address() as AddressInfo).port}`] });
      const client = createConnection({ host: '127.0.0.1', port: front.port });
      let received = '';
      client.on('data', (chunk: Buffer) => (received += chunk.toString()));
      client.on('error', () => undefined);
      await new Promise((resolve) => client.once('close', resolve));
      expect(received).toBe('');
    } finally {
      await new Promise((resolve) => backend.close(resolve));
    }
  });
});
