export { loadConfig, ConfigError } from './config';
export type { Config } from './config';
export { findProjectRoot } from './project-root';
