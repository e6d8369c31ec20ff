import type { CedarValueJson, SchemaJson } from '@cedar-policy/cedar-wasm/nodejs';

/** The type of one context attribute, as far as a JSON request can fill it. */
type Shape =
  | { readonly kind: 'string' | 'long' | 'boolean' }
  | { readonly kind: 'record'; readonly attributes: ReadonlyMap<string, { readonly shape: Shape; readonly required: boolean }> }
  | { readonly kind: 'set'; readonly element: Shape }
  /** An entity, extension or unknown type: no request value is taken for it. */
  | { readonly kind: 'other' };

/** The context record an action declares (`appliesTo { context: … }`). */
export type ContextShape = Extract<Shape, { kind: 'record' }>;

const PRIMITIVES = new Map<string, 'string' | 'long' | 'boolean'>([
  ['String', 'string'],
  ['Long', 'long'],
  ['Bool', 'boolean'],
  ['Boolean', 'boolean'],
  ['__cedar::String', 'string'],
  ['__cedar::Long', 'long'],
  ['__cedar::Bool', 'boolean'],
  ['__cedar::Boolean', 'boolean'],
]);

/** Deepest context record followed (a schema's limits keep real ones far shallower). */
const MAX_DEPTH = 8;

type Json = Record<string, unknown>;

function shapeOf(type: Json, common: Json, namespace: string, depth: number): Shape {
  if (depth > MAX_DEPTH) return { kind: 'other' };
  const name = typeof type.name === 'string' ? type.name : typeof type.type === 'string' ? type.type : '';
  const primitive = PRIMITIVES.get(type.type === 'EntityOrCommon' ? name : String(type.type));
  if (primitive) return { kind: primitive };
  if (type.type === 'Record') {
    const attributes = new Map<string, { shape: Shape; required: boolean }>();
    for (const [attr, t] of Object.entries((type.attributes ?? {}) as Record<string, Json>)) {
      attributes.set(attr, { shape: shapeOf(t, common, namespace, depth + 1), required: t.required !== false });
    }
    return { kind: 'record', attributes };
  }
  if (type.type === 'Set' && type.element) return { kind: 'set', element: shapeOf(type.element as Json, common, namespace, depth + 1) };
  // A common type, named with or without its namespace.
  const local = name.startsWith(`${namespace}::`) ? name.slice(namespace.length + 2) : name;
  const named = common[local];
  if (named && typeof named === 'object') return shapeOf(named as Json, common, namespace, depth + 1);
  return { kind: 'other' };
}

/**
 * The context each action of a schema (JSON form) declares, by action id; an action that
 * declares none takes an empty context. Exactly one namespace, as `describeSchema` requires.
 */
export function describeActionContexts(json: SchemaJson<string>): ReadonlyMap<string, ContextShape> {
  const contexts = new Map<string, ContextShape>();
  const [namespace = ''] = Object.keys(json);
  const definition = json[namespace] as unknown as { actions?: Record<string, { appliesTo?: { context?: Json } }>; commonTypes?: Json } | undefined;
  for (const [id, action] of Object.entries(definition?.actions ?? {})) {
    const declared = action.appliesTo?.context;
    const shape = declared ? shapeOf(declared, definition?.commonTypes ?? {}, namespace, 0) : undefined;
    contexts.set(id, shape?.kind === 'record' ? shape : { kind: 'record', attributes: new Map() });
  }
  return contexts;
}

function convert(shape: Shape, value: unknown): CedarValueJson | undefined {
  switch (shape.kind) {
    case 'string':
      return typeof value === 'string' ? value : undefined;
    case 'long':
      return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'set': {
      if (!Array.isArray(value)) return undefined;
      const items = value.map((v) => convert(shape.element, v));
      return items.every((i) => i !== undefined) ? (items as CedarValueJson[]) : undefined;
    }
    case 'record': {
      const converted = toCedarContext(shape, value);
      return typeof converted === 'string' ? undefined : converted;
    }
    default:
      return undefined;
  }
}

/**
 * A request's context (any JSON) as the Cedar context `shape` declares: declared attributes
 * whose value has the declared type, nested records likewise; anything else is left out,
 * as a policy cannot read what its schema does not declare (AuthZEN: unknown fields are
 * ignored). A string naming the first required attribute missing when one is, so the
 * caller can deny instead of asking Cedar, which would refuse the context.
 */
export function toCedarContext(shape: ContextShape, value: unknown): Record<string, CedarValueJson> | string {
  const given = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const out: Record<string, CedarValueJson> = {};
  for (const [name, { shape: attribute, required }] of shape.attributes) {
    const converted = Object.hasOwn(given, name) ? convert(attribute, given[name]) : undefined;
    if (converted !== undefined) out[name] = converted;
    else if (required) return `context.${name} is required and missing or not of its declared type`;
  }
  return out;
}
