import type { ChainableCommander, Redis } from 'ioredis';

// The presence record is a hash {node, connected_at, last_seen} with a PX TTL
// (docs/architecture.md, "Cluster mode: Redis keys and channels"). Each script reads and
// writes one key atomically, so two nodes racing on one edge never interleave.

/** A newer socket wins: take the key whatever it held, and say who held it. */
const CLAIM = `
local previous = redis.call('HGET', KEYS[1], 'node')
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'connected_at', ARGV[2], 'last_seen', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return previous`;

/** 1 refreshed, 2 restored (the key had expired or Redis restarted empty), 0 another node owns it. */
const REFRESH = `
local owner = redis.call('HGET', KEYS[1], 'node')
if owner == false then
  redis.call('HSET', KEYS[1], 'node', ARGV[1], 'connected_at', ARGV[4], 'last_seen', ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return 2
end
if owner ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'last_seen', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/**
 * Compare-and-delete: a late disconnect on an old node never deletes a newer node's claim, nor
 * (when ARGV[2], the session's connected_at, is given) a newer socket's claim on the same node.
 */
const RELEASE = `
if redis.call('HGET', KEYS[1], 'node') ~= ARGV[1] then return 0 end
if ARGV[2] ~= '' and redis.call('HGET', KEYS[1], 'connected_at') ~= ARGV[2] then return 0 end
return redis.call('DEL', KEYS[1])`;

type Call = (...args: (string | number)[]) => unknown;

/** The three scripts, callable on the client or queued on one of its pipelines. */
export interface PresenceScripts {
  claim(on: Redis | ChainableCommander, key: string, node: string, now: number, ttlMs: number): unknown;
  refresh(on: Redis | ChainableCommander, key: string, node: string, now: number, ttlMs: number, connectedAt: number): unknown;
  release(on: Redis | ChainableCommander, key: string, node: string, connectedAt?: number): unknown;
}

const NAMES = { claim: 'outpostPresenceClaim', refresh: 'outpostPresenceRefresh', release: 'outpostPresenceRelease' } as const;

/**
 * Registers the scripts on `client` (ioredis sends EVAL once per connection, then EVALSHA,
 * so a Redis that restarted empty is served again without our help).
 */
export function definePresenceScripts(client: Redis): PresenceScripts {
  client.defineCommand(NAMES.claim, { numberOfKeys: 1, lua: CLAIM });
  client.defineCommand(NAMES.refresh, { numberOfKeys: 1, lua: REFRESH });
  client.defineCommand(NAMES.release, { numberOfKeys: 1, lua: RELEASE });
  const call = (on: Redis | ChainableCommander, name: string): Call => (on as unknown as Record<string, Call>)[name]!.bind(on);
  return {
    claim: (on, key, node, now, ttlMs) => call(on, NAMES.claim)(key, node, now, ttlMs),
    refresh: (on, key, node, now, ttlMs, connectedAt) => call(on, NAMES.refresh)(key, node, now, ttlMs, connectedAt),
    release: (on, key, node, connectedAt) => call(on, NAMES.release)(key, node, connectedAt === undefined ? '' : connectedAt),
  };
}
