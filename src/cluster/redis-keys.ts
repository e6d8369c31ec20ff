import type { InstanceKey } from '../relay';

/** The prefix of every key and channel cluster mode uses, so one Redis can serve other things too. */
export const DEFAULT_REDIS_PREFIX = 'outpost:';

/** A node id names a channel and a key: short, and only characters that need no escaping. */
export const NODE_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** The longest tenant or instance id a key is built from; the relay's own ids are far shorter. */
export const MAX_KEY_PART_LENGTH = 256;

/** Throws unless `node` is a usable node id (checked once, where a component starts). */
export function checkNodeId(node: string): void {
  if (!NODE_ID_PATTERN.test(node)) throw new Error(`node id must match ${NODE_ID_PATTERN}: ${JSON.stringify(node)}`);
}

function checkPart(what: string, value: string): void {
  if (value.length === 0 || value.length > MAX_KEY_PART_LENGTH) throw new Error(`${what} must be 1-${MAX_KEY_PART_LENGTH} characters`);
}

/** Builds the cluster's Redis names under one prefix. */
export interface RedisKeys {
  /**
   * `<prefix>edge:<tenant length>:<tenant>:<instance>`. The length prefix makes the split
   * unambiguous whatever the ids hold, so no tenant can name another tenant's key.
   */
  edge(key: InstanceKey): string;
  /** `<prefix>node:<id>`: present while the node is alive. */
  node(node: string): string;
  /** `<prefix>node:<id>:inbox`: the channel a node's bus listens on. */
  inbox(node: string): string;
}

/** Key and channel names under `prefix` ({@link DEFAULT_REDIS_PREFIX} unless a test isolates itself). */
export function redisKeys(prefix: string = DEFAULT_REDIS_PREFIX): RedisKeys {
  return {
    edge({ tenantId, instanceId }) {
      checkPart('tenant id', tenantId);
      checkPart('instance id', instanceId);
      return `${prefix}edge:${tenantId.length}:${tenantId}:${instanceId}`;
    },
    node(node) {
      checkNodeId(node);
      return `${prefix}node:${node}`;
    },
    inbox(node) {
      checkNodeId(node);
      return `${prefix}node:${node}:inbox`;
    },
  };
}
