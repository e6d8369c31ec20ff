import { Redis } from 'ioredis';
import type { Logger } from '../observability';
import { routingUnavailable } from './routing-errors';

/** The longest one Redis command may take before it counts as "routing unavailable". */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/** The longest pause between two reconnection attempts while Redis is down. */
export const REDIS_MAX_RECONNECT_DELAY_MS = 1000;

/**
 * A Redis client that fails fast instead of queueing: while it is not connected a command
 * rejects at once (no offline queue, no retries of a command cut off by a disconnect, 1 s
 * per command), and it reconnects by itself with a backoff capped at 1 s. Routing decisions
 * are only worth making now; an exec queued behind a Redis outage would outlive its caller.
 */
export function connectRedis(url: string, options: { logger: Logger; name: string }): Redis {
  const client = new Redis(url, {
    connectionName: options.name,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    disconnectTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (times) => Math.min(times * 100, REDIS_MAX_RECONNECT_DELAY_MS),
  });
  watchRedis(client, options.logger.child({ redis: options.name }));
  return client;
}

/**
 * Logs a client's outages once each (not every failed reconnection attempt) and keeps its
 * `error` events from becoming unhandled. {@link connectRedis} calls it; a `duplicate()`d
 * client needs it too.
 */
export function watchRedis(client: Redis, log: Logger): void {
  let down = false;
  client.on('error', (err: Error) => {
    if (!down) log.warn({ err: err.message }, 'redis error');
    down = true;
  });
  client.on('close', () => {
    if (!down) log.warn('redis connection lost; reconnecting');
    down = true;
  });
  client.on('ready', () => {
    if (down) log.info('redis connection restored');
    down = false;
  });
}

/**
 * Closes a client whatever its state and resolves once it is closed. One that is waiting to
 * reconnect has no socket left to close, so ioredis would never report its end; it is simply
 * stopped.
 */
export async function disconnectRedis(client: Redis): Promise<void> {
  const status = client.status;
  if (status === 'end') return;
  if (status === 'reconnecting' || status === 'close' || status === 'wait') {
    client.disconnect();
    return;
  }
  const ended = new Promise((resolve) => client.once('end', resolve));
  client.disconnect();
  await ended;
}

/** Resolves once `client` is ready, or rejects with 503 `routing_unavailable` after `timeoutMs`. */
export function redisReady(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      client.off('ready', onReady);
      reject(routingUnavailable(`redis not ready within ${timeoutMs} ms (status ${client.status})`));
    }, timeoutMs);
    function onReady() {
      clearTimeout(timer);
      resolve();
    }
    client.once('ready', onReady);
  });
}

/**
 * Runs Redis work, failing fast: a client that is not connected is not even asked, and any
 * failure (connection lost, timeout, a refused command) becomes 503 `routing_unavailable`
 * with the client's message as log-only detail.
 */
export async function callRedis<T>(client: Redis, work: () => Promise<T>): Promise<T> {
  if (client.status !== 'ready') throw routingUnavailable(`redis is ${client.status}`);
  try {
    return await work();
  } catch (err) {
    throw routingUnavailable((err as Error).message);
  }
}
