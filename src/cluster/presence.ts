import type { Redis } from 'ioredis';
import type { InstanceKey } from '../relay';
import { callRedis } from './connect-redis';
import { definePresenceScripts } from './presence-scripts';
import { checkNodeId, redisKeys } from './redis-keys';

/** How long a node counts as alive after its last beat; beats come every second. */
export const NODE_TTL_MS = 3000;

/** Which node holds an edge's socket, since when, and when it was last heard from (epoch ms). */
export interface PresenceRecord {
  readonly node: string;
  readonly connectedAt: number;
  readonly lastSeen: number;
}

/** One of this node's live sockets, as a heartbeat tick refreshes it. */
export interface HeldEdge {
  readonly key: InstanceKey;
  readonly connectedAt: number;
}

/**
 * What a refresh found: `refreshed`; `restored` (the record was gone, expired or lost in a
 * Redis restart, and is written again); `lost` (another node claimed the edge since, so
 * this node's socket is the older one and should be closed).
 */
export type RefreshOutcome = 'refreshed' | 'restored' | 'lost';

/** Options of {@link createPresence}. */
export interface PresenceOptions {
  /** A client from `connectRedis` (fails fast while Redis is down). */
  readonly redis: Redis;
  /** The relay's ping period; an edge record lives `3 × heartbeatMs` unless `ttlMs` says otherwise. */
  readonly heartbeatMs: number;
  readonly ttlMs?: number;
  /** Lifetime of a node's liveness key (default {@link NODE_TTL_MS}). */
  readonly nodeTtlMs?: number;
  /** Key prefix (default `outpost:`); tests use their own. */
  readonly prefix?: string;
}

/**
 * The shared registry of which node holds which edge's socket. Every method fails fast with
 * 503 `routing_unavailable` while Redis is unreachable.
 */
export interface Presence {
  readonly ttlMs: number;
  /** Records `node` as the holder; the newest socket wins. Resolves with the previous holder, if another node. */
  claim(key: InstanceKey, node: string, now: number): Promise<string | undefined>;
  /** Extends this node's records in one pipeline per heartbeat tick; outcomes in the order given. */
  refresh(edges: readonly HeldEdge[], node: string, now: number): Promise<RefreshOutcome[]>;
  /**
   * Deletes the record only while `node` still holds it — and, with `connectedAt`, only while
   * it is still that socket's claim (a reconnect to the same node claims anew); true when it did.
   */
  release(key: InstanceKey, node: string, connectedAt?: number): Promise<boolean>;
  lookup(key: InstanceKey): Promise<PresenceRecord | undefined>;
  /** One round trip for a page of registrations; `undefined` where no node holds the edge. */
  lookupMany(keys: readonly InstanceKey[]): Promise<(PresenceRecord | undefined)[]>;
  /** Marks `node` alive for the node TTL; call it about every second. */
  markNodeAlive(node: string, now: number): Promise<void>;
  /** Forgets `node` at once (a clean shutdown), so others stop routing to it. */
  markNodeGone(node: string): Promise<void>;
  isAlive(node: string): Promise<boolean>;
}

function toRecord(fields: readonly (string | null)[]): PresenceRecord | undefined {
  const [node, connectedAt, lastSeen] = fields;
  if (!node) return undefined;
  return { node, connectedAt: Number(connectedAt), lastSeen: Number(lastSeen) };
}

/** Results of an exec'd pipeline, or the first error among them. */
function results(replies: [Error | null, unknown][] | null): unknown[] {
  if (replies === null) throw new Error('pipeline discarded');
  const out: unknown[] = new Array(replies.length);
  for (let i = 0; i < replies.length; i += 1) {
    const [err, value] = replies[i]!;
    if (err) throw err;
    out[i] = value;
  }
  return out;
}

const REFRESH_OUTCOMES: readonly RefreshOutcome[] = ['lost', 'refreshed', 'restored'];

/** Builds the presence registry over one Redis client; checks its options once. */
export function createPresence(options: PresenceOptions): Presence {
  const { redis } = options;
  const ttlMs = options.ttlMs ?? 3 * options.heartbeatMs;
  const nodeTtlMs = options.nodeTtlMs ?? NODE_TTL_MS;
  if (!(Number.isInteger(ttlMs) && ttlMs > 0) || !(Number.isInteger(nodeTtlMs) && nodeTtlMs > 0)) {
    throw new Error('presence TTLs must be positive integers (milliseconds)');
  }
  const keys = redisKeys(options.prefix);
  const scripts = definePresenceScripts(redis);

  return {
    ttlMs,
    async claim(key, node, now) {
      checkNodeId(node);
      const edgeKey = keys.edge(key);
      return callRedis(redis, async () => {
        const previous = (await scripts.claim(redis, edgeKey, node, now, ttlMs)) as string | null;
        return previous === null || previous === node ? undefined : previous;
      });
    },
    async refresh(edges, node, now) {
      checkNodeId(node);
      if (edges.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const edge of edges) scripts.refresh(pipeline, keys.edge(edge.key), node, now, ttlMs, edge.connectedAt);
      const codes = await callRedis(redis, async () => results(await pipeline.exec()));
      const outcomes: RefreshOutcome[] = new Array(codes.length);
      for (let i = 0; i < codes.length; i += 1) outcomes[i] = REFRESH_OUTCOMES[Number(codes[i])] ?? 'lost';
      return outcomes;
    },
    async release(key, node, connectedAt) {
      checkNodeId(node);
      const edgeKey = keys.edge(key);
      return callRedis(redis, async () => Number(await scripts.release(redis, edgeKey, node, connectedAt)) === 1);
    },
    async lookup(key) {
      const edgeKey = keys.edge(key);
      return callRedis(redis, async () => toRecord(await redis.hmget(edgeKey, 'node', 'connected_at', 'last_seen')));
    },
    async lookupMany(list) {
      if (list.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const key of list) pipeline.hmget(keys.edge(key), 'node', 'connected_at', 'last_seen');
      const replies = await callRedis(redis, async () => results(await pipeline.exec()));
      const records: (PresenceRecord | undefined)[] = new Array(replies.length);
      for (let i = 0; i < replies.length; i += 1) records[i] = toRecord(replies[i] as (string | null)[]);
      return records;
    },
    async markNodeAlive(node, now) {
      const nodeKey = keys.node(node);
      return callRedis(redis, async () => {
        await redis.set(nodeKey, String(now), 'PX', nodeTtlMs);
      });
    },
    async markNodeGone(node) {
      const nodeKey = keys.node(node);
      return callRedis(redis, async () => {
        await redis.del(nodeKey);
      });
    },
    async isAlive(node) {
      const nodeKey = keys.node(node);
      return callRedis(redis, async () => (await redis.exists(nodeKey)) === 1);
    },
  };
}
