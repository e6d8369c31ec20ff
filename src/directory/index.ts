export {
  loadDirectorySeed,
  effectiveRoles,
  expandRoles,
  directoryDataSchema,
  RELATIONS,
  resolveUserId,
  identityClashes,
  identitiesSchema,
  MAX_IDENTITIES_PER_USER,
} from './directory-data';
export type { DirectoryData, DirectoryUser, Role, Relation } from './directory-data';
export { applyDirectoryChange, directoryChangeSchema } from './directory-change';
export type { DirectoryChange } from './directory-change';
export { directoryPropertiesSchema, DEFAULT_RESOURCE_TYPE, MAX_DIRECTORY_PROPERTIES } from './directory-properties';
export type { DirectoryProperties } from './directory-properties';
