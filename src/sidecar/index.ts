export { createEdge } from './create-edge';
export type { Edge, EdgeDeps } from './create-edge';
export { startEdgeFromConfig } from './start-edge';
export { createDecisionRoutes } from './edge-app';
