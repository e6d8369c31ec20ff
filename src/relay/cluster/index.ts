// Cluster mode's Redis building blocks (docs/architecture.md, "Cluster mode: Redis keys and
// channels"): which node holds which edge's socket, and request/reply between nodes.
export { connectRedis, disconnectRedis, watchRedis, redisReady, callRedis, REDIS_COMMAND_TIMEOUT_MS, REDIS_MAX_RECONNECT_DELAY_MS } from './connect-redis';
export { createPresence, NODE_TTL_MS } from './presence';
export type { Presence, PresenceOptions, PresenceRecord, HeldEdge, RefreshOutcome } from './presence';
export { startNodeBus, MAX_BUS_IN_FLIGHT } from './node-bus';
export type { NodeBus, NodeBusOptions, BusAsk, BusRequestHandler } from './node-bus';
export { MAX_BUS_MESSAGE_BYTES, MAX_BUS_REPLY_BYTES, MAX_BUS_BROADCAST_IDS, BUS_REQUEST_KINDS } from './bus-messages';
export type { BusRequest, BusRequestKind } from './bus-messages';
export { redisKeys, checkNodeId, DEFAULT_REDIS_PREFIX, NODE_ID_PATTERN, MAX_KEY_PART_LENGTH } from './redis-keys';
export type { RedisKeys } from './redis-keys';
export { routingUnavailable, isRoutingUnavailable, tooManyInFlight, ROUTING_UNAVAILABLE } from './routing-errors';
export { toWireError, fromWireError } from './wire-errors';
export type { WireError } from './wire-errors';
export { connectCluster, defaultNodeId } from './connect-cluster';
export type { RelayCluster, ConnectClusterOptions } from './connect-cluster';
