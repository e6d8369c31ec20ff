export {
  loadDirectorySeed,
  effectiveRoles,
  expandRoles,
  directoryDataSchema,
  RELATIONS,
} from './directory-data';
export type { DirectoryData, DirectoryUser, Role, Relation } from './directory-data';
export { applyDirectoryChange, directoryChangeSchema } from './directory-change';
export type { DirectoryChange } from './directory-change';
