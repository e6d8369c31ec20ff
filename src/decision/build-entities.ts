import { expandRoles, RELATIONS, type DirectoryData, type Relation } from '../directory';
import { qualifyType, type AttributeKind, type CedarEntity, type CedarValueJson, type EntityRef, type PolicySchemaInfo } from '../policy';
import type { AuthorizationRequest } from './authorizer';

type Attributes = NonNullable<AuthorizationRequest['resource']['attributes']>;

/**
 * The directory as Cedar entities, shaped by one policy schema and built once per
 * (policy image, directory revision). A decision then sends Cedar only the principal
 * (with every role it holds as a parent) plus the resource, never the whole directory.
 */
export interface DirectoryEntities {
  readonly revision: number;
  /** `{type, id}` with the schema's namespace, e.g. `Outpost::User`. */
  ref(type: string, id: string): EntityRef;
  /** The user entity, every role it holds directly or through nesting as its parents; undefined if unknown. */
  principalSlice(userId: string): readonly CedarEntity[] | undefined;
  /** The request's resource entity (a `User` with its roles as parents), unless it is the principal itself. */
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
 * (`email`, `name`) and, as parents, every role they hold directly or through nesting
 * (admin ⊃ editor ⊃ viewer): Cedar's `in` needs a principal's ancestors, not the role
 * entities themselves (roles have no attributes), and converting each entity into Cedar
 * is most of a decision's cost — sending the user alone halves what crosses into wasm.
 */
export function buildDirectoryEntities(directory: DirectoryData, schema: PolicySchemaInfo): DirectoryEntities {
  const ns = schema.namespace;
  const ref = (type: string, id: string): EntityRef => ({ type: qualifyType(ns, type), id });
  const userAttrs = schema.entityTypes.get('User') ?? new Map<string, AttributeKind>();
  const roleIds = new Set(directory.roles.map((r) => r.id));

  const slices = new Map<string, readonly CedarEntity[]>();
  for (const user of directory.users) {
    const attrs: Record<string, CedarValueJson> = {};
    if (userAttrs.has('email')) attrs.email = user.email;
    if (userAttrs.has('name')) attrs.name = user.name;
    const parents = expandRoles(directory, user.roles).filter((r) => roleIds.has(r)).map((r) => ref('Role', r));
    slices.set(user.id, Object.freeze([{ uid: ref('User', user.id), attrs, parents }]));
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
      const result: CedarEntity[] = [];
      if (resource.type === 'User') {
        // The principal's own entity is already sent; another user goes in with its roles.
        if (resource.id !== principalId) for (const entity of slices.get(resource.id) ?? []) result.push(entity);
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
