import { expandRoles, RELATIONS, type DirectoryData, type Relation } from '../directory';
import { qualifyType, type AttributeKind, type CedarEntity, type CedarValueJson, type EntityRef, type PolicySchemaInfo } from '../policy';
import type { AuthorizationRequest } from './authorizer';

type Attributes = NonNullable<AuthorizationRequest['resource']['attributes']>;

/**
 * The directory as Cedar entities, shaped by one policy schema and built once per
 * (policy image, directory revision). A decision then sends Cedar only the principal's
 * slice (the user and the roles above it) plus the resource, never the whole directory.
 */
export interface DirectoryEntities {
  readonly revision: number;
  /** `{type, id}` with the schema's namespace, e.g. `Outpost::User`. */
  ref(type: string, id: string): EntityRef;
  /** The user and every role it holds directly or through nesting; undefined if unknown. */
  principalSlice(userId: string): readonly CedarEntity[] | undefined;
  /** The request's resource entity (plus, for a `User`, its roles), without duplicates of `principalId`'s slice. */
  resourceEntities(resource: AuthorizationRequest['resource'], principalId: string): CedarEntity[];
}

// rebac's `owners` / `writers` / `readers` attributes hold the users with that relation.
const RELATION_ATTRIBUTES = new Map<string, Relation>(RELATIONS.map((r) => [`${r}s`, r]));

function toCedarValue(kind: AttributeKind, value: string | number | boolean): CedarValueJson | undefined {
  if (kind.kind === 'entity') return { __entity: { type: kind.entityType, id: String(value) } };
  if (kind.kind === 'entity-set') return undefined; // a scalar cannot stand for a set
  return value;
}

/**
 * Builds {@link DirectoryEntities}. Users carry the attributes the schema declares
 * (`email`, `name`) and their direct roles as parents; roles have the roles they
 * include as parents (admin ⊃ editor ⊃ viewer), so Cedar's `in` follows the nesting.
 */
export function buildDirectoryEntities(directory: DirectoryData, schema: PolicySchemaInfo): DirectoryEntities {
  const ns = schema.namespace;
  const ref = (type: string, id: string): EntityRef => ({ type: qualifyType(ns, type), id });
  const userAttrs = schema.entityTypes.get('User') ?? new Map<string, AttributeKind>();
  const roleIncludes = new Map(directory.roles.map((r) => [r.id, r.includes.filter((i) => i !== r.id)]));
  const roleEntities = new Map<string, CedarEntity>(
    directory.roles.map((r) => [r.id, { uid: ref('Role', r.id), attrs: {}, parents: (roleIncludes.get(r.id) ?? []).map((i) => ref('Role', i)) }]),
  );
  const roleClosure = (roles: readonly string[]): CedarEntity[] =>
    expandRoles(directory, roles).flatMap((r) => roleEntities.get(r) ?? []);

  const slices = new Map<string, readonly CedarEntity[]>();
  for (const user of directory.users) {
    const attrs: Record<string, CedarValueJson> = {};
    if (userAttrs.has('email')) attrs.email = user.email;
    if (userAttrs.has('name')) attrs.name = user.name;
    const parents = user.roles.filter((r) => roleEntities.has(r)).map((r) => ref('Role', r));
    slices.set(user.id, Object.freeze([{ uid: ref('User', user.id), attrs, parents }, ...roleClosure(user.roles)]));
  }

  // Relation attributes per resource, built once: decisions only look them up.
  const resourceAttrs = schema.entityTypes.get('Resource') ?? new Map<string, AttributeKind>();
  const relationAttributes = (relations: DirectoryData['resources'][number]['relations'] | undefined) => {
    const attrs: Record<string, CedarValueJson> = {};
    for (const [attr, kind] of resourceAttrs) {
      const relation = RELATION_ATTRIBUTES.get(attr);
      if (relation && kind.kind === 'entity-set') attrs[attr] = (relations?.[relation] ?? []).map((userId) => ({ __entity: ref('User', userId) }));
    }
    return attrs;
  };
  const resourceRelations = new Map(directory.resources.map((r) => [r.id, relationAttributes(r.relations)]));
  const noRelations = relationAttributes(undefined);

  return {
    revision: directory.revision,
    ref,
    principalSlice: (userId) => slices.get(userId),
    resourceEntities(resource, principalId) {
      // Plain loops, no callbacks into array built-ins: see the note in local-authorizer.ts.
      const result: CedarEntity[] = [];
      if (resource.type === 'User') {
        // Role entities are shared objects, so identity finds the ones the principal already sends.
        const mine = new Set(slices.get(principalId));
        for (const entity of slices.get(resource.id) ?? []) if (!mine.has(entity)) result.push(entity);
        return result;
      }
      const declared = schema.entityTypes.get(resource.type);
      const attrs: Record<string, CedarValueJson> = {};
      const given = (resource.attributes ?? {}) as Attributes;
      for (const name in given) {
        const kind = declared?.get(name);
        const converted = kind ? toCedarValue(kind, given[name] as string | number | boolean) : undefined;
        if (converted !== undefined) attrs[name] = converted;
      }
      // Relations come from the directory only; a caller cannot claim ownership.
      if (resource.type === 'Resource') Object.assign(attrs, resourceRelations.get(resource.id) ?? noRelations);
      result.push({ uid: ref(resource.type, resource.id), attrs, parents: [] });
      return result;
    },
  };
}
