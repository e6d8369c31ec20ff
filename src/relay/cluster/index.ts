// Cluster mode's Redis building blocks (docs/architecture.md, "Cluster mode: Redis keys and
// channels"): which node holds which edge's socket, and request/reply between nodes.
export { connectRedis, disconnectRedis, redisReady } from './connect-redis';
export { createPresence } from './presence';
export type { Presence, HeldEdge } from './presence';
export { startNodeBus } from './node-bus';
export type { NodeBus, NodeBusOptions, BusAsk } from './node-bus';
export { MAX_BUS_REPLY_BYTES, MAX_BUS_BROADCAST_IDS } from './bus-messages';
export type { BusRequest } from './bus-messages';
export { redisKeys } from './redis-keys';
export { tooManyInFlight } from './routing-errors';
export { connectCluster } from './connect-cluster';
export type { RelayCluster } from './connect-cluster';
