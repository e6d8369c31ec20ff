import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';
import { createServer } from 'node:http';
import type { Logger } from '../observability';

/** Starts an HTTP server and resolves once it is listening (port 0 picks a free port). */
export function listen(handler: RequestListener, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    // Slow-loris protection: a client that trickles its headers is cut off.
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** The base URL of a listening server, e.g. `http://127.0.0.1:40123`. */
export function baseUrl(server: Server): string {
  const { address, port, family } = server.address() as AddressInfo;
  const host = family === 'IPv6' ? `[${address}]` : address;
  return `http://${host}:${port}`;
}

/** Closes a server, ending idle keep-alive sockets so the close cannot hang. */
export function close(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeIdleConnections();
  });
}

/**
 * Graceful shutdown for an entry file: on SIGTERM or SIGINT stop accepting connections,
 * run the component's own cleanup, and exit; a second signal or a 10 s stall forces exit.
 */
export function shutdownOnSignal(logger: Logger, cleanup: () => Promise<void>): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => process.exit(1), 10_000).unref();
    cleanup().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
