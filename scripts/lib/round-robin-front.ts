import { createConnection, createServer, type Socket } from 'node:net';

/** A TCP front spreading connections over several nodes, like a load balancer would. */
export interface RoundRobinFront {
  /** `http://127.0.0.1:<port>` (use `ws://` for WebSockets: it is plain TCP underneath). */
  readonly url: string;
  readonly port: number;
  /** Replaces the backends (`host:port`); the next connection goes to the first. */
  setBackends(backends: readonly string[]): void;
  /** Stops listening and destroys every open connection. */
  close(): Promise<void>;
}

/** What a client hears when its node died before answering: a 502 with the error contract, then the connection closes. */
const BAD_GATEWAY_BODY = JSON.stringify({
  code: 'bad_gateway',
  message: 'the node closed the connection before answering; the request may or may not have taken effect',
});
const BAD_GATEWAY = [
  'HTTP/1.1 502 Bad Gateway',
  'content-type: application/json; charset=utf-8',
  `content-length: ${Buffer.byteLength(BAD_GATEWAY_BODY)}`,
  'cache-control: no-store',
  'connection: close',
  '',
  BAD_GATEWAY_BODY,
].join('\r\n');

function parseBackend(backend: string): { host: string; port: number } {
  const at = backend.lastIndexOf(':');
  const port = Number(backend.slice(at + 1));
  if (at <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`backend must be host:port: ${backend}`);
  return { host: backend.slice(0, at), port };
}

/**
 * Starts a round-robin TCP proxy on loopback for tests and benchmarks of several nodes: each
 * incoming connection is piped to the next backend; one that refuses the connection is
 * skipped for the next, until every backend was tried (then the client is dropped). Being
 * TCP, it carries HTTP and WebSocket alike; half-closes pass through, and either side dying
 * ends the pair without an uncaught error.
 *
 * A node that dies (SIGKILL mid-exec, a crash) after the client sent its request but before a
 * single byte came back is answered as a load balancer would: 502 with the error contract
 * (`bad_gateway`), then the connection closes — not a bare reset. The limit of a proxy that
 * does not parse HTTP: this holds for the first request of a connection only. Once any byte
 * of an answer went back, the front cannot tell where that answer ended, so a later request on
 * the same kept-alive connection, or an answer cut half-way, still ends in a closed connection.
 */
export async function startRoundRobinFront(options: { port?: number; backends: readonly string[] }): Promise<RoundRobinFront> {
  let backends = options.backends.map(parseBackend);
  let next = 0;
  const open = new Set<Socket>();

  function track(socket: Socket): void {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  }

  function connect(client: Socket, attemptsLeft: number): void {
    if (attemptsLeft === 0 || backends.length === 0 || client.destroyed) {
      client.destroy();
      return;
    }
    const target = backends[next % backends.length]!;
    next = (next + 1) % backends.length;
    const upstream = createConnection({ host: target.host, port: target.port, allowHalfOpen: true });
    track(upstream);
    let connected = false;
    upstream.once('error', () => {
      // Refused before connecting: the next backend. After: the pair ends below.
      if (connected) return;
      upstream.destroy();
      connect(client, attemptsLeft - 1);
    });
    upstream.once('connect', () => {
      connected = true;
      if (client.destroyed) {
        upstream.destroy();
        return;
      }
      // Whether the client sent a byte, and whether the node answered one, on this connection.
      let asked = false;
      let answered = false;
      client.on('data', () => (asked = true));
      upstream.on('data', () => (answered = true));
      /** The node is gone (a reset, or its end) before answering what it was asked: 502, then close. */
      const diedBeforeAnswering = () => asked && !answered && !client.destroyed && !client.writableEnded;
      const badGateway = () => client.end(BAD_GATEWAY, () => client.destroy());
      // Once the node is gone the client goes too, but only after what was written to it is out.
      const closeClient = () => (client.writableEnded && !client.writableFinished ? client.once('finish', () => client.destroy()) : client.destroy());
      // The node's error is followed by its 'close', which decides.
      upstream.on('error', () => undefined);
      client.on('error', () => upstream.destroy());
      upstream.once('end', () => (diedBeforeAnswering() ? badGateway() : client.end()));
      upstream.once('close', () => (diedBeforeAnswering() ? badGateway() : closeClient()));
      client.once('close', () => upstream.destroy());
      client.pipe(upstream);
      // Not ending the client with the node: a node that ends without answering gets the 502 above.
      upstream.pipe(client, { end: false });
    });
  }

  const server = createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    track(client);
    // Until a backend answers; afterwards the pair's own handlers take over.
    client.on('error', () => undefined);
    connect(client, backends.length);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    setBackends(list) {
      backends = list.map(parseBackend);
      next = 0;
    },
    close() {
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      });
    },
  };
}
