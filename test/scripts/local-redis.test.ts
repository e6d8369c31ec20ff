import { createConnection } from 'node:net';
import { startLocalRedis } from '../../scripts/lib/local-redis';

/** One PING on a raw socket: the reply line, or the socket error's code. */
function ping(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString().trim());
    });
  });
}

describe('startLocalRedis', () => {
  it('runs an empty redis-server on a free port that kill() stops and restart() brings back on the same port', async () => {
    const redis = await startLocalRedis();
    try {
      expect(redis.url).toBe(`redis://127.0.0.1:${redis.port}`);
      await expect(ping(redis.port)).resolves.toBe('+PONG');
      await redis.kill();
      await expect(ping(redis.port)).resolves.toBe('ECONNREFUSED');
      await redis.restart();
      await expect(ping(redis.port)).resolves.toBe('+PONG');
    } finally {
      await redis.stop();
    }
    await expect(ping(redis.port)).resolves.toBe('ECONNREFUSED');
  });

  it('names the package to install when redis-server is missing', async () => {
    await expect(startLocalRedis({ binary: '/nonexistent/redis-server' })).rejects.toThrow('apt-get install -y redis-server');
  });

  it('reports a port it cannot take', async () => {
    const first = await startLocalRedis();
    try {
      await expect(startLocalRedis({ port: first.port })).rejects.toThrow(/exited with code/);
    } finally {
      await first.stop();
    }
  });
});
