export { createRbacApp } from './create-rbac-app';
