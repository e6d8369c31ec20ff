// The control plane's process (main.ts): the one place that plugs the platform into the control
// plane and its relay (decision records, signed images, the console, cluster mode, broadcast,
// drift and /metrics, /openapi.json), as src/sidecar does for an edge.
export { startControlPlaneRelay } from './start-control-plane-relay';
export type { ControlPlaneRelay } from './start-control-plane-relay';
export { relayPlatform } from './relay-platform';
export { controlPlaneExtensions } from './control-plane-extensions';
