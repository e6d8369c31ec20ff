import type { SchemaJson, Type } from '@cedar-policy/cedar-wasm/nodejs';

/** How an attribute's value is built from a plain request or directory value. */
export type AttributeKind =
  | { readonly kind: 'entity'; readonly entityType: string }
  | { readonly kind: 'entity-set'; readonly entityType: string }
  | { readonly kind: 'value' };

/** What an image's schema declares, in the shape the entity builder needs. */
export interface PolicySchemaInfo {
  /** The schema's one namespace, e.g. `Outpost` (`""` for none). */
  readonly namespace: string;
  /** Entity type (unqualified) → declared attributes. */
  readonly entityTypes: ReadonlyMap<string, ReadonlyMap<string, AttributeKind>>;
  /** Action id → qualified principal and resource types it applies to. */
  readonly actions: ReadonlyMap<string, { readonly principalTypes: ReadonlySet<string>; readonly resourceTypes: ReadonlySet<string> }>;
}

/** `Outpost::User` for `User` in namespace `Outpost`; `User` with no namespace. */
export function qualifyType(namespace: string, type: string): string {
  return namespace === '' ? type : `${namespace}::${type}`;
}

function kindOf(type: Type<string>): AttributeKind {
  if ('type' in type && type.type === 'Entity' && 'name' in type) return { kind: 'entity', entityType: type.name };
  if ('type' in type && type.type === 'Set' && 'element' in type) {
    const element = type.element;
    if ('type' in element && element.type === 'Entity' && 'name' in element) return { kind: 'entity-set', entityType: element.name };
  }
  return { kind: 'value' };
}

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
  return { namespace, entityTypes, actions };
}
