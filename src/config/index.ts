export { loadConfig, ConfigError, TODO_CLIENT_ID, CONSOLE_CLIENT_ID } from './config';
export type { Config, OAuthClient } from './config';
export { findProjectRoot } from './project-root';
