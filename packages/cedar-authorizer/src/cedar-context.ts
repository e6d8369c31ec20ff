import type { CedarValueJson, SchemaJson } from '@cedar-policy/cedar-wasm/nodejs';

/**
 * What Outpost needs to know of a context attribute's declared type: only where records
 * are, so that attributes a record does not declare can be left out (AuthZEN: unknown
 * fields are ignored). Every other type — String, Long, Bool, the extension types
 * (ipaddr, decimal, datetime, duration), entities — is a `value`: passed to Cedar as it
 * was sent, for Cedar to parse against the schema as it parses any request (`__extn`,
 * `__entity` and the schema-directed plain forms alike) and to refuse when it does not fit.
 */
type Shape =
  | {
      readonly kind: 'record';
      /** Declared attributes, by name in sorted order, so equal contexts give equal keys. */
      readonly attributes: ReadonlyMap<string, Shape>;
      /** `additionalAttributes: true`: nothing is left out, Cedar takes what it takes. */
      readonly open: boolean;
    }
  | { readonly kind: 'set'; readonly element: Shape }
  | { readonly kind: 'value' };

/** The context record an action declares (`appliesTo { context: … }`). */
export type ContextShape = Extract<Shape, { kind: 'record' }>;

const VALUE: Shape = { kind: 'value' };

/**
 * Deepest declared type followed. A schema's text limits keep real ones far shallower;
 * past it the value goes to Cedar as sent (so Cedar, not Outpost, judges it).
 */
const MAX_SCHEMA_DEPTH = 32;

/**
 * Deepest context value taken (Cedar's own JSON parser stops at 128 levels). A deeper one
 * is refused — a deny — rather than walked.
 */
const MAX_VALUE_DEPTH = 64;

type Json = Record<string, unknown>;

function shapeOf(type: Json, common: Json, namespace: string, depth: number): Shape {
  if (depth > MAX_SCHEMA_DEPTH) return VALUE;
  if (type.type === 'Record') {
    const declared = (type.attributes ?? {}) as Record<string, Json>;
    const attributes = new Map<string, Shape>();
    for (const attr of Object.keys(declared).sort()) attributes.set(attr, shapeOf(declared[attr] as Json, common, namespace, depth + 1));
    return { kind: 'record', attributes, open: type.additionalAttributes === true };
  }
  if (type.type === 'Set' && type.element && typeof type.element === 'object') {
    const element = shapeOf(type.element as Json, common, namespace, depth + 1);
    return element.kind === 'value' ? { kind: 'set', element: VALUE } : { kind: 'set', element };
  }
  // A common type, named with or without its namespace (`EntityOrCommon` in an unresolved
  // schema); anything else named here is a primitive, an extension or an entity type.
  const name = type.type === 'EntityOrCommon' ? type.name : type.type;
  if (typeof name !== 'string') return VALUE;
  const local = namespace !== '' && name.startsWith(`${namespace}::`) ? name.slice(namespace.length + 2) : name;
  const named = Object.hasOwn(common, local) ? common[local] : undefined;
  return named && typeof named === 'object' ? shapeOf(named as Json, common, namespace, depth + 1) : VALUE;
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
    contexts.set(id, shape?.kind === 'record' ? shape : { kind: 'record', attributes: new Map(), open: false });
  }
  return contexts;
}

/** Thrown inside the walk when a value is no JSON (or too deep): the request is refused. */
class NotJson extends Error {}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** The attributes of `given` that `shape` declares (all of them when it is open), keys sorted. */
function recordOf(shape: ContextShape, given: Record<string, unknown>, path: string, depth: number): Record<string, CedarValueJson> {
  const entries: [string, CedarValueJson][] = [];
  if (shape.open) {
    for (const name of Object.keys(given).sort()) {
      const attribute = shape.attributes.get(name) ?? VALUE;
      if (given[name] !== undefined) entries.push([name, canonical(attribute, given[name], `${path}.${name}`, depth + 1)]);
    }
  } else {
    for (const [name, attribute] of shape.attributes) {
      if (Object.hasOwn(given, name) && given[name] !== undefined) entries.push([name, canonical(attribute, given[name], `${path}.${name}`, depth + 1)]);
    }
  }
  // fromEntries defines own properties, so even an attribute named `__proto__` stays data.
  return Object.fromEntries(entries);
}

/**
 * `value` as a fresh JSON tree with object keys sorted, undeclared record attributes left
 * out; everything else exactly as sent, for Cedar to parse. Throws {@link NotJson} for
 * what JSON cannot carry (NaN, a function, a class instance, `undefined` in a list…).
 */
function canonical(shape: Shape, value: unknown, path: string, depth: number): CedarValueJson {
  if (depth > MAX_VALUE_DEPTH) throw new NotJson(`${path} is nested more than ${MAX_VALUE_DEPTH} levels deep`);
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw new NotJson(`${path} is not a JSON number`);
    case 'object': {
      // null is no Cedar value: Cedar refuses it, so it is passed on for Cedar to say so.
      if (value === null) return null as unknown as CedarValueJson;
      if (Array.isArray(value)) {
        const element = shape.kind === 'set' ? shape.element : VALUE;
        return value.map((item, i) => {
          if (item === undefined) throw new NotJson(`${path}[${i}] is not a JSON value`);
          return canonical(element, item, `${path}[${i}]`, depth + 1);
        });
      }
      if (!isPlainObject(value)) throw new NotJson(`${path} is not a JSON value`);
      if (shape.kind === 'record') return recordOf(shape, value, path, depth);
      return recordOf({ kind: 'record', attributes: new Map(), open: true }, value, path, depth);
    }
    default:
      throw new NotJson(`${path} is not a JSON value`);
  }
}

/**
 * A request's context (any JSON) as Cedar is given it for an action declaring `shape`: the
 * attributes it declares — in records nested at any depth too — exactly as sent, object
 * keys sorted; undeclared ones left out, as a policy cannot read what its schema does not
 * declare (AuthZEN: unknown fields are ignored). Whether the values fit their declared
 * types (an `ipaddr` as `"10.0.0.1"`, `{"fn":"ip","arg":…}` or `{"__extn":…}`, an entity as
 * `{"type","id"}` or `{"__entity":…}`, a required attribute present…) is Cedar's to say,
 * against the schema, as for any request. A context that is no object is an empty one.
 * A string saying why when the context is no JSON value at all (NaN, a function…): the
 * caller denies without asking Cedar.
 */
export function toCedarContext(shape: ContextShape, value: unknown): Record<string, CedarValueJson> | string {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return {};
  try {
    if (!isPlainObject(value)) throw new NotJson('context is not a JSON value');
    return recordOf(shape, value, 'context', 0);
  } catch (err) {
    if (err instanceof NotJson) return err.message;
    throw err;
  }
}
