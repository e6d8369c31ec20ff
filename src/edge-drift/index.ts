// Drift and /metrics (docs/reference/api.md, "Relay management API"; docs/guide/04-relay-and-console.md, Drift):
// a platform area that plugs into the relay's extension hook (RelayDeps.extensions), wired by
// src/control-plane-server; the broadcast's `stale_only` filter reads the same drift.
export { edgeDriftExtension } from './drift-extension';
export { edgeDrift, memoizeDesiredState } from './edge-drift';
export type { DesiredEdgeState, DesiredStateLookup } from './edge-drift';
export { MAX_DRIFT_METRIC_TENANTS } from './drift-metrics';
