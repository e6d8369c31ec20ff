export { loadConfig, ConfigError, TODO_CLIENT_ID, CONSOLE_CLIENT_ID, CONTROL_PLANE_AUDIENCE, POSTGRES_DATA_DIR } from './config';
export type { Config, OAuthClient } from './config';
export { findProjectRoot, packageVersion } from './project-root';
export { APP_LIST_FILE, APP_NAME_PATTERN, checkAppList, envPrefixOf, findApp, formatAppList, readAppList } from './app-list';
export type { AppListEntry } from './app-list';
export { renderConfigTable, renderEnvExample, CONFIG_TABLE_MARKERS } from './describe-env';
export {
  DEMO_TENANT_FILE,
  demoTenantPath,
  readDemoTenantFile,
  writeDemoTenantFile,
} from './demo-tenant-file';
export type { DemoTenant } from './demo-tenant-file';
export { appConnection, sidecarConnection } from './edge-connections';
export type { EdgeConnectionCredentials } from './edge-connections';
export { foreignDemoTenantWayOut, nameDatabase } from './demo-tenant-words';
export type { DemoTenantDatabase } from './demo-tenant-words';
export { describePolicyFolderSync, readPolicyFoldersReport, writePolicyFoldersReport } from './policy-folders-report';
export type { PolicyFolderSync } from './policy-folders-report';
