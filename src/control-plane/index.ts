export { openControlPlaneStore, DEFAULT_CHANGE_LOG_LIMIT, SERVER_BUSY_TIMEOUT_MS } from './control-plane-store';
export type { ControlPlaneStore, ControlPlaneStoreOptions } from './control-plane-store';
export { UnknownTenantError } from './tenant-repository';
export type {
  EdgeConnection,
  TenantKeyKind,
  TenantSummary,
  NewTenantKeys,
  NewConnection,
  TenantRepository,
} from './tenant-repository';
export { LATEST_TAG } from './policy-image-repository';
export type { PolicyImageRepository, PolicyImageVersion, PushResult } from './policy-image-repository';
export type { DirectoryRepository, ChangesSince } from './directory-repository';
export type { DirectoryChangeInput } from './check-directory-change';
export { createTenant } from './create-tenant';
export type { CreateTenantOptions } from './create-tenant';
export { seedControlPlane, DEMO_TENANT_NAME, DEMO_POLICY } from './seed-control-plane';
export type { SeedOptions } from './seed-control-plane';
export { requireTenantKey, tenantUnauthorized, authenticatedTenant, TENANT_HEADER } from './require-tenant-key';
export { requireConnection, authenticatedConnection } from './require-connection';
export { createControlPlaneApp, BODY_LIMITS } from './create-control-plane-app';
export { createControlPlaneRelay } from './create-control-plane-relay';
export type { ControlPlaneAppDeps } from './create-control-plane-app';
export { InvalidPolicyError } from './validate-pushed-image';
export { controlPlaneDbPath, CONTROL_PLANE_DB_FILE } from './control-plane-db-path';
