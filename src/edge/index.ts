export { createEdge } from './create-edge';
export type { Edge, EdgeDeps } from './create-edge';
export { createCoalescingJob } from './coalescing-job';
export { backoffDelay } from './backoff';
export type { Timers } from './timers';
export { startEdgeFromConfig } from './start-edge';
