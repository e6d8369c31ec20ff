import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../observability';
import { connectRedis, disconnectRedis, redisReady } from './connect-redis';
import { startNodeBus, type NodeBus } from './node-bus';
import { createPresence, type Presence } from './presence';
import { checkNodeId } from './redis-keys';
import { joinCluster } from './join-cluster';
import type { RelayClusterPlugin } from '../relay';

/**
 * What the relay needs to run as one node of a cluster (docs/architecture.md, "Cluster mode:
 * Redis keys and channels"): its id, the shared presence registry, the bus to the other
 * nodes, and the client whose `ready` event says Redis is back.
 */
export interface RelayCluster extends RelayClusterPlugin {
  readonly node: string;
  readonly redis: Redis;
  readonly presence: Presence;
  readonly bus: NodeBus;
  /** Closes the bus and the Redis connection; the relay calls it last when it closes. */
  close(): Promise<void>;
}

/** Options of {@link connectCluster}. */
export interface ConnectClusterOptions {
  /** `REDIS_URL`. */
  readonly url: string;
  /** `RELAY_NODE_ID`, or {@link defaultNodeId} when unset. */
  readonly node?: string;
  /** The relay's ping period; presence records live three of them. */
  readonly heartbeatMs: number;
  readonly logger: Logger;
  /** Key prefix; tests isolate themselves with their own. */
  readonly prefix?: string;
  /** How long start-up waits for Redis (default 5 s); a node that cannot reach it does not start. */
  readonly readyTimeoutMs?: number;
}

/**
 * `<hostname>-<pid>-<random>`, cut to the node id pattern: unique per process, and readable
 * in Redis and in logs. A restarted process is a new node; its old edges re-register.
 */
export function defaultNodeId(): string {
  const host = hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40) || 'node';
  return `${host}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Connects this node to the cluster's Redis: waits until it answers (start-up fails
 * otherwise), then subscribes the node's inbox. From then on the client reconnects by itself.
 */
export async function connectCluster(options: ConnectClusterOptions): Promise<RelayCluster> {
  const node = options.node ?? defaultNodeId();
  checkNodeId(node);
  const readyTimeoutMs = options.readyTimeoutMs ?? 5000;
  const redis = connectRedis(options.url, { logger: options.logger, name: node });
  try {
    await redisReady(redis, readyTimeoutMs);
    const bus = await startNodeBus({
      redis,
      node,
      logger: options.logger,
      readyTimeoutMs,
      ...(options.prefix === undefined ? {} : { prefix: options.prefix }),
    });
    const presence = createPresence({ redis, heartbeatMs: options.heartbeatMs, ...(options.prefix === undefined ? {} : { prefix: options.prefix }) });
    const cluster: RelayCluster = {
      node,
      redis,
      presence,
      bus,
      join: (relay) => joinCluster({ ...relay, cluster }),
      async close() {
        await bus.close();
        await disconnectRedis(redis);
      },
    };
    return cluster;
  } catch (err) {
    await disconnectRedis(redis);
    throw err;
  }
}
