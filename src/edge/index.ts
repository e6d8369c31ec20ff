export { createEdge } from './create-edge';
export type { Edge, EdgeDeps } from './create-edge';
export { createCoalescingJob } from './coalescing-job';
export type { CoalescingJob } from './coalescing-job';
export { backoffDelay, DEFAULT_BACKOFF } from './backoff';
export type { CommandOutcome } from './relay-client';
export type { Timers } from './timers';
export { startEdgeFromConfig } from './start-edge';
