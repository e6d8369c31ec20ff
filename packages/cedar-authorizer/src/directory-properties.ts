import { z } from 'zod';

/** Most properties one user or resource may hold (docs/reference/limits.md). */
export const MAX_DIRECTORY_PROPERTIES = 32;

/**
 * Facts the directory holds about a user or a resource, for policies to read — a user's
 * department, a record's department and owner (a user id). Flat scalars, named as Cedar
 * attributes; a policy sees those its schema declares, converted to the declared type. A
 * caller's request can never override them.
 */
export const directoryPropertiesSchema = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), z.union([z.string().max(512), z.number(), z.boolean()]))
  .refine((p) => Object.keys(p).length <= MAX_DIRECTORY_PROPERTIES, `at most ${MAX_DIRECTORY_PROPERTIES} properties`);

export type DirectoryProperties = z.infer<typeof directoryPropertiesSchema>;

/**
 * The Cedar entity type of a directory resource, without namespace (`record`); absent, it is
 * `Resource`, the relation-holding type of `policies/rebac`.
 */
export const directoryResourceTypeSchema = z.string().regex(/^[_A-Za-z][_A-Za-z0-9]{0,63}$/);

/** The type of a resource that names none. */
export const DEFAULT_RESOURCE_TYPE = 'Resource';
