// The tenant-wide broadcast (docs/reference/api.md, "Broadcast"): a platform area that plugs into
// the relay's extension hook (RelayDeps.extensions), wired by src/control-plane-server.
export { relayBroadcast } from './relay-broadcast';
export type { RelayBroadcast } from './relay-broadcast';
export type { BroadcastResult } from './broadcast';
export type { BroadcastFilter } from './parse-broadcast-request';
