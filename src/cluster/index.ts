// Cluster mode (docs/architecture.md, "Cluster mode: Redis keys and channels"): which node holds
// which edge's socket, request/reply between nodes, and the relay's side of them, plugged into the
// relay's one hook for it (`connectCluster` returns the plug-in, RelayDeps.cluster).
export { connectRedis, disconnectRedis, redisReady } from './connect-redis';
export { createPresence } from './presence';
export type { Presence } from './presence';
export { startNodeBus } from './node-bus';
export type { NodeBus, NodeBusOptions } from './node-bus';
export { MAX_BUS_REPLY_BYTES } from './bus-messages';
export type { BusRequest } from './bus-messages';
export { redisKeys } from './redis-keys';
export { tooManyInFlight } from './routing-errors';
export { connectCluster } from './connect-cluster';
