export { createRbacApp, RESOURCE_METHODS } from './create-rbac-app';
export type { RbacAppDeps } from './create-rbac-app';
