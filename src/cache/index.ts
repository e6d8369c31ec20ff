export { createLruCache } from './lru-cache';
export type { LruCache } from './lru-cache';
