export { createLogger, silentLogger, unredactedLogger } from './logger';
export { LOG_BUFFER_FLUSH_BYTES } from './batched-destination';
export type { Logger } from './logger';
export { prometheusLabel } from './prometheus-label';
export { createRateLimitedLog, thrownName } from './rate-limited-log';
export type { RateLimitedLog } from './rate-limited-log';
