import { expandRoles, RELATIONS, resolveUserId, type DirectoryData, type Relation } from './directory-data';
import type { DirectoryProperties } from './directory-properties';
import type { EntityJson as CedarEntity, CedarValueJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { EntityRef } from './compiled-policy';
import { qualifyType, type AttributeKind, type PolicySchemaInfo } from './describe-schema';
import { InvalidPropertyError, type AuthorizationRequest } from '@outpost/express-authz';

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
  /** The schema's type for directory users (`User`, or `user`). */
  readonly userType: string;
  /** The user entity, every role it holds directly or through nesting as its parents; undefined if unknown. */
  principalSlice(userId: string): readonly CedarEntity[] | undefined;
  /** The request's resource entity (a `User` with its roles as parents), unless it is the principal itself. */
  resourceEntities(resource: AuthorizationRequest['resource'], principalId: string): CedarEntity[];
}

// rebac's `owners` / `writers` / `readers` attributes hold the users with that relation.
const RELATION_ATTRIBUTES = new Map<string, Relation>(RELATIONS.map((r) => [`${r}s`, r]));

/** What a property of each kind must be in JSON, as a refusal names it. */
const EXPECTED: Record<AttributeKind['kind'], string> = {
  entity: 'a string (an entity id)',
  'entity-set': 'a set of entities',
  string: 'a string',
  long: 'a whole number',
  boolean: 'true or false',
  value: 'a set, record or extension value, which a request property cannot carry',
};

function fits(kind: AttributeKind['kind'], value: string | number | boolean): boolean {
  switch (kind) {
    case 'entity':
    case 'string':
      return typeof value === 'string';
    case 'long':
      // Cedar's Long is a 64-bit integer; JSON numbers beyond 2^53 are not exact.
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return false;
  }
}

/**
 * A request property as the Cedar value the schema declares, or an {@link InvalidPropertyError}
 * (400) naming it: a caller's wrong type is the caller's mistake, not an outage, and Cedar
 * would otherwise refuse the whole request. `user` maps ids to directory user ids.
 */
function toCedarValue(name: string, kind: AttributeKind, value: string | number | boolean, user: (entityType: string, id: string) => string): CedarValueJson {
  if (!fits(kind.kind, value)) throw new InvalidPropertyError(name, `${EXPECTED[kind.kind]}, not ${JSON.stringify(value).slice(0, 40)}`);
  if (kind.kind === 'entity') return { __entity: { type: kind.entityType, id: user(kind.entityType, value as string) } };
  return value;
}

/**
 * The directory's properties of a user or resource that the schema declares, as Cedar
 * values. One whose type the schema contradicts is left out (the directory's mistake, not
 * the caller's: a policy reading it then fails, and a failing policy never permits).
 */
function directoryAttributes(
  properties: DirectoryProperties | undefined,
  declared: ReadonlyMap<string, AttributeKind>,
  user: (entityType: string, id: string) => string,
): Record<string, CedarValueJson> {
  const attrs: Record<string, CedarValueJson> = {};
  for (const name in properties) {
    const kind = declared.get(name);
    const value = properties[name]!;
    if (kind && kind.kind !== 'entity-set' && fits(kind.kind, value)) attrs[name] = toCedarValue(name, kind, value, user);
  }
  return attrs;
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
  const { userType, roleType } = schema;
  const ref = (type: string, id: string): EntityRef => ({ type: qualifyType(ns, type), id });
  const qualifiedUser = qualifyType(ns, userType);
  // A user named by e-mail or another identity is the same entity as the principal.
  const userId = (entityType: string, id: string) => (entityType === qualifiedUser ? resolveUserId(directory, id) : id);
  const userAttrs = schema.entityTypes.get(userType) ?? new Map<string, AttributeKind>();
  const roleIds = new Set(directory.roles.map((r) => r.id));

  const slices = new Map<string, readonly CedarEntity[]>();
  for (const user of directory.users) {
    const attrs: Record<string, CedarValueJson> = {};
    if (userAttrs.has('email')) attrs.email = user.email;
    if (userAttrs.has('name')) attrs.name = user.name;
    Object.assign(attrs, directoryAttributes(user.properties, userAttrs, userId));
    const parents = expandRoles(directory, user.roles).filter((r) => roleIds.has(r)).map((r) => ref(roleType, r));
    slices.set(user.id, Object.freeze([{ uid: ref(userType, user.id), attrs, parents }]));
  }

  // Relation attributes per resource, built once: decisions only look them up.
  const resourceAttrs = schema.entityTypes.get('Resource') ?? new Map<string, AttributeKind>();
  const relationAttributes = (relations: DirectoryData['resources'][number]['relations'] | undefined) => {
    const attrs: Record<string, CedarValueJson> = {};
    for (const [attr, kind] of resourceAttrs) {
      const relation = RELATION_ATTRIBUTES.get(attr);
      if (relation && kind.kind === 'entity-set') attrs[attr] = (relations?.[relation] ?? []).map((id) => ({ __entity: ref(userType, id) }));
    }
    return attrs;
  };
  const resourceRelations = new Map(directory.resources.map((r) => [r.id, relationAttributes(r.relations)]));
  const noRelations = relationAttributes(undefined);
  // The properties of typed directory resources (a record's department and owner), by type and id.
  const resourceProperties = new Map<string, Record<string, CedarValueJson>>();
  for (const r of directory.resources) {
    if (r.type === undefined || r.properties === undefined) continue;
    const declared = schema.entityTypes.get(r.type);
    if (declared) resourceProperties.set(`${r.type} ${r.id}`, directoryAttributes(r.properties, declared, userId));
  }

  return {
    revision: directory.revision,
    ref,
    userType,
    principalSlice: (userId) => slices.get(userId),
    resourceEntities(resource, principalId) {
      const result: CedarEntity[] = [];
      if (resource.type === userType) {
        // The principal's own entity is already sent; another user goes in with its roles.
        if (resource.id !== principalId) for (const entity of slices.get(resource.id) ?? []) result.push(entity);
        return result;
      }
      const declared = schema.entityTypes.get(resource.type);
      const attrs: Record<string, CedarValueJson> = {};
      const given = (resource.attributes ?? {}) as Attributes;
      for (const name in given) {
        const kind = declared?.get(name);
        // Undeclared properties are ignored (the policy cannot read them), and so are sets of
        // entities: those are relations, which come from the directory, never from a caller.
        if (kind && kind.kind !== 'entity-set') attrs[name] = toCedarValue(name, kind, given[name] as string | number | boolean, userId);
      }
      // Relations and directory properties come from the directory only; a caller cannot claim ownership.
      if (resource.type === 'Resource') Object.assign(attrs, resourceRelations.get(resource.id) ?? noRelations);
      Object.assign(attrs, resourceProperties.get(`${resource.type} ${resource.id}`));
      result.push({ uid: ref(resource.type, resource.id), attrs, parents: [] });
      return result;
    },
  };
}
