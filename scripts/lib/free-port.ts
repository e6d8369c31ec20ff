import { createServer } from 'node:net';

/**
 * A free loopback port, as the kernel hands one out to a listener on port 0. Another process
 * may take it before the caller binds it; callers that start servers on it fail loudly then.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
