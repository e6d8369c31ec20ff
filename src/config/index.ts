export { loadConfig, ConfigError } from './config';
export type { Config, OAuthClient } from './config';
export { findProjectRoot } from './project-root';
