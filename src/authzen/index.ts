export { createAuthzenMetadataRouter, createAuthzenRoutes } from './authzen-routes';
export { createAuthzenSearchRoutes } from './authzen-search-routes';
export { searchEdge } from './search-edge';
