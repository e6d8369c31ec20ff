import { DEFAULT_RESOURCE_TYPE, type DirectoryData } from '../directory';
import { localType, qualifyType, type PolicySchemaInfo } from '../policy';

/** The only AuthZEN subject type the directory holds (its Cedar type is the schema's `userType`). */
export const SUBJECT_TYPE = 'user';

/** Properties a caller may attach to a resource (flat scalars, as in an evaluation). */
export type CandidateProperties = Readonly<Record<string, string | number | boolean>>;

/** One entity a search may return: an id and, for resources an app supplies, its properties. */
export interface SearchCandidate {
  readonly id: string;
  readonly properties?: CandidateProperties;
}

/** Candidates sorted by id, each id once (a later one replaces an earlier one). */
function byId(candidates: Iterable<SearchCandidate>): SearchCandidate[] {
  const unique = new Map<string, SearchCandidate>();
  for (const c of candidates) unique.set(c.id, c);
  return [...unique.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Subject search: every directory user when the type is `user`, else none. */
export function subjectCandidates(directory: DirectoryData, type: string): SearchCandidate[] {
  return type === SUBJECT_TYPE ? byId(directory.users.map((u) => ({ id: u.id }))) : [];
}

/**
 * Resource search: the entities of `type` the PDP knows — directory users for the user type, the
 * directory's resources for their type — plus those the caller supplies in-process (an
 * app's todos, which live in the app's own store). A type the schema does not declare has
 * none: no policy could permit it.
 */
export function resourceCandidates(
  directory: DirectoryData,
  schema: PolicySchemaInfo,
  type: string,
  supplied: readonly SearchCandidate[] = [],
): SearchCandidate[] {
  const local = localType(schema.namespace, type);
  if (!schema.entityTypes.has(local)) return [];
  const known: SearchCandidate[] = [];
  if (local === schema.userType) for (const u of directory.users) known.push({ id: u.id });
  for (const r of directory.resources) {
    if ((r.type ?? DEFAULT_RESOURCE_TYPE) === local) known.push({ id: r.id });
  }
  return byId([...known, ...supplied]);
}

/**
 * Action search: the schema's actions that apply to a user principal and a resource of
 * `resourceType` (Cedar's `appliesTo`); any other action is denied without evaluating.
 */
export function actionCandidates(schema: PolicySchemaInfo, subjectType: string, resourceType: string): SearchCandidate[] {
  if (subjectType !== SUBJECT_TYPE) return [];
  const principal = qualifyType(schema.namespace, schema.userType);
  const resource = qualifyType(schema.namespace, localType(schema.namespace, resourceType));
  const names: SearchCandidate[] = [];
  for (const [name, applies] of schema.actions) {
    if (applies.principalTypes.has(principal) && applies.resourceTypes.has(resource)) names.push({ id: name });
  }
  return byId(names);
}
