export { deepFreeze } from './deep-freeze';
export type { DeepReadonly } from './deep-freeze';
