/**
 * The directory: its data and seed files are the Cedar package's (packages/cedar-authorizer);
 * the changes the control plane logs and the edges apply are here.
 */
export {
  loadDirectorySeed,
  effectiveRoles,
  expandRoles,
  directoryDataSchema,
  RELATIONS,
  resolveUserId,
  identityClashes,
  identitiesSchema,
  directoryPropertiesSchema,
  DEFAULT_RESOURCE_TYPE,
  MAX_DIRECTORY_PROPERTIES,
} from '@outpost/cedar-authorizer';
export type { DirectoryData, DirectoryUser, Relation } from '@outpost/cedar-authorizer';
export { applyDirectoryChange, directoryChangeSchema } from './directory-change';
export type { DirectoryChange } from './directory-change';
