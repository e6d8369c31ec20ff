import type { Redis } from 'ioredis';
import { startLocalRedis, type LocalRedis } from '../../scripts/lib/local-redis';
import { silentLogger } from '../../src/observability';
import { connectRedis, disconnectRedis, redisReady } from '../../src/cluster';

/** The throwaway Redis of one test file, and clients of it that are closed before it stops. */
export interface TestRedis {
  readonly server: LocalRedis;
  /** A fail-fast client (`connectRedis`), ready; disconnected in `afterAll`. */
  connect(name?: string): Promise<Redis>;
}

/**
 * One throwaway redis-server for the test file that calls this at its top level: started in
 * `beforeAll`; in `afterAll` its clients are disconnected, then it is stopped and its
 * directory deleted. Use `.server` and `.connect()` inside tests and hooks.
 */
export function useLocalRedis(): TestRedis {
  let server: LocalRedis | undefined;
  const clients: Redis[] = [];
  beforeAll(async () => {
    server = await startLocalRedis();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => disconnectRedis(client)));
    await server?.stop();
  });
  const self: TestRedis = {
    get server() {
      if (!server) throw new Error('the local Redis is not started yet (use it inside a test or hook)');
      return server;
    },
    async connect(name = 'test') {
      const client = connectRedis(self.server.url, { logger: silentLogger(), name });
      clients.push(client);
      await redisReady(client, 5000);
      return client;
    },
  };
  return self;
}

export { waitUntil } from './wait-for';
