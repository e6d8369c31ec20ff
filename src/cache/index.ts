export { createLruCache } from './lru-cache';
export { deepFreeze } from './deep-freeze';
export type { DeepReadonly } from './deep-freeze';
