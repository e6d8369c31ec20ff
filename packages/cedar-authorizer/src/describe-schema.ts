import type { SchemaJson, Type } from '@cedar-policy/cedar-wasm/nodejs';

/** How an attribute's value is built from a plain request or directory value. */
export type AttributeKind =
  | { readonly kind: 'entity'; readonly entityType: string }
  | { readonly kind: 'entity-set'; readonly entityType: string }
  | { readonly kind: 'string' | 'long' | 'boolean' }
  /** A set, record or extension type: not something a flat request property can carry. */
  | { readonly kind: 'value' };

/** What an image's schema declares, in the shape the entity builder needs. */
export interface PolicySchemaInfo {
  /** The schema's one namespace, e.g. `Outpost` (`""` for none). */
  readonly namespace: string;
  /** Entity type (unqualified) → declared attributes. */
  readonly entityTypes: ReadonlyMap<string, ReadonlyMap<string, AttributeKind>>;
  /**
   * The entity type the directory's users are (`User`, or `user` when the schema names them
   * so, as the AuthZEN Todo scenario does) and the type of their roles (`Role` or `role`).
   */
  readonly userType: string;
  readonly roleType: string;
  /** Action id → qualified principal and resource types it applies to. */
  readonly actions: ReadonlyMap<string, { readonly principalTypes: ReadonlySet<string>; readonly resourceTypes: ReadonlySet<string> }>;
}

/**
 * `Outpost::User` for `User` in namespace `Outpost`; `User` with no namespace. A type that
 * is already namespaced (`Outpost::User`, `Other::Thing`) is left as it is.
 */
export function qualifyType(namespace: string, type: string): string {
  return namespace === '' || type.includes('::') ? type : `${namespace}::${type}`;
}

/**
 * The schema's own name for a type a caller wrote: `Todo` for `Outpost::Todo` in namespace
 * `Outpost`; a type of another namespace stays qualified (and so matches nothing declared).
 */
export function localType(namespace: string, type: string): string {
  const prefix = `${namespace}::`;
  if (namespace === '' || !type.startsWith(prefix)) return type;
  const rest = type.slice(prefix.length);
  return rest.includes('::') ? type : rest;
}

/** `User` if the schema declares it, else `user` if it declares that, else `User`. */
function pick(declared: ReadonlyMap<string, unknown>, name: string): string {
  if (declared.has(name)) return name;
  return declared.has(name.toLowerCase()) ? name.toLowerCase() : name;
}

function kindOf(type: Type<string>): AttributeKind {
  if ('type' in type && type.type === 'Entity' && 'name' in type) return { kind: 'entity', entityType: type.name };
  if ('type' in type && type.type === 'Set' && 'element' in type) {
    const element = type.element;
    if ('type' in element && element.type === 'Entity' && 'name' in element) return { kind: 'entity-set', entityType: element.name };
  }
  if ('type' in type && type.type === 'EntityOrCommon' && 'name' in type) {
    // Resolved schemas name primitives as `__cedar::String` etc.
    const primitive = PRIMITIVES.get(type.name);
    if (primitive) return { kind: primitive };
  }
  if ('type' in type) {
    const primitive = PRIMITIVES.get(type.type);
    if (primitive) return { kind: primitive };
  }
  return { kind: 'value' };
}

const PRIMITIVES = new Map<string, 'string' | 'long' | 'boolean'>([
  ['String', 'string'],
  ['Long', 'long'],
  ['Boolean', 'boolean'],
  ['__cedar::String', 'string'],
  ['__cedar::Long', 'long'],
  ['__cedar::Bool', 'boolean'],
  ['__cedar::Boolean', 'boolean'],
  ['Bool', 'boolean'],
]);

/**
 * Summarises a schema (JSON form with resolved types). Exactly one namespace is
 * allowed, so request types and action ids are unambiguous.
 */
export function describeSchema(json: SchemaJson<string>): PolicySchemaInfo | string {
  const namespaces = Object.keys(json);
  if (namespaces.length !== 1) return `schema must declare exactly one namespace (found ${namespaces.length})`;
  const namespace = namespaces[0] as string;
  const definition = json[namespace]!;
  const entityTypes = new Map<string, Map<string, AttributeKind>>();
  for (const [name, entity] of Object.entries(definition.entityTypes)) {
    const attributes = new Map<string, AttributeKind>();
    const shape = 'shape' in entity ? entity.shape : undefined;
    const declared = shape && 'attributes' in shape ? (shape.attributes as Record<string, Type<string>>) : {};
    for (const [attr, type] of Object.entries(declared)) attributes.set(attr, kindOf(type));
    entityTypes.set(name, attributes);
  }
  const actions = new Map<string, { principalTypes: Set<string>; resourceTypes: Set<string> }>();
  for (const [id, action] of Object.entries(definition.actions)) {
    actions.set(id, {
      principalTypes: new Set(action.appliesTo?.principalTypes ?? []),
      resourceTypes: new Set(action.appliesTo?.resourceTypes ?? []),
    });
  }
  return { namespace, entityTypes, userType: pick(entityTypes, 'User'), roleType: pick(entityTypes, 'Role'), actions };
}
