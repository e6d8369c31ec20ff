export { createLogger, silentLogger } from './logger';
export type { Logger } from './logger';
