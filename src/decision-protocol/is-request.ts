import { z } from 'zod';
import { entityTypeSchema } from './entity-type';
import { freshnessFields } from './freshness-fields';
import { POLICY_PATH_PATTERN } from '@outpost/cedar-authorizer';

/** Identity types of the Topaz authorizer API; the short forms are accepted as aliases. */
export const IDENTITY_TYPES = ['IDENTITY_TYPE_SUB', 'IDENTITY_TYPE_JWT', 'IDENTITY_TYPE_NONE'] as const;
export type IdentityType = (typeof IDENTITY_TYPES)[number];

/** Topaz's enum numbers for them (`IdentityType` in its proto), which protojson also takes. */
const IDENTITY_TYPE_NUMBERS: Readonly<Record<number, IdentityType>> = { 1: 'IDENTITY_TYPE_NONE', 2: 'IDENTITY_TYPE_SUB', 3: 'IDENTITY_TYPE_JWT' };

const identityType = z.union([
  z.enum([...IDENTITY_TYPES, 'SUB', 'JWT', 'NONE']).transform((t): IdentityType => (t.startsWith('IDENTITY_TYPE_') ? (t as IdentityType) : `IDENTITY_TYPE_${t as 'SUB' | 'JWT' | 'NONE'}`)),
  z.union([z.literal(1), z.literal(2), z.literal(3)]).transform((n): IdentityType => IDENTITY_TYPE_NUMBERS[n]!),
]);

/**
 * A value of `resource_context` (a `google.protobuf.Struct` in Topaz): a flat value — a
 * string of at most 512, a number, a boolean — becomes an attribute of the resource; a
 * nested one (object, array, null) is taken as sent and reaches the policy in the Cedar
 * context only, as a value of `context.resource`. The body limit bounds its size.
 */
const attributeValue = z.union([z.string().max(512), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]);

/** A flat `resource_context` value: what can be a resource attribute. */
export function isFlatValue(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/**
 * Body of `POST /api/v2/authz/is`, in the shape of Topaz's `Is` call:
 * `identity_context` says who asks, `policy_context.path` names `<policy>.<action>` and
 * `decisions` the decisions wanted (Outpost's policies decide `allowed`),
 * `resource_context` the resource (`type`, `id`, plus attributes such as `owner`, flat or
 * nested). Field names in lowerCamelCase are taken too ({@link withProtoFieldNames}). The
 * freshness fields are Outpost's own (see {@link freshnessFields}).
 */
export const isRequestSchema = z.object({
  identity_context: z.object({ type: identityType, identity: z.string().max(8192).optional() }),
  policy_context: z.object({
    path: z.string().regex(POLICY_PATH_PATTERN, 'path must be <policy name>.<action>'),
    decisions: z.array(z.string().max(64)).min(1).max(8),
  }),
  resource_context: z
    .object({ type: entityTypeSchema, id: z.string().min(1).max(128) })
    .catchall(attributeValue)
    .refine((r) => Object.keys(r).length <= 34, 'too many resource attributes'),
  ...freshnessFields,
});

export type IsRequest = z.infer<typeof isRequestSchema>;

/**
 * The body's fields that protojson (Topaz's REST gateway) also takes in lowerCamelCase, and
 * their proto names. The fields inside `identity_context` and `policy_context` are one word
 * each; `resource_context` is a Struct, whose keys are data and never renamed.
 */
const CAMEL_CASE_FIELDS: ReadonlyMap<string, string> = new Map([
  ['identityContext', 'identity_context'],
  ['policyContext', 'policy_context'],
  ['resourceContext', 'resource_context'],
  ['policyInstance', 'policy_instance'],
  ['minDirectoryRevision', 'min_directory_revision'],
  ['minPolicyDigest', 'min_policy_digest'],
]);

/**
 * The body with its lowerCamelCase field names in their proto (snake_case) spelling, as
 * protojson reads either: the same object when it has none (the common case costs a look at
 * each top-level key). A field sent in both spellings is refused, as protojson refuses it:
 * `{duplicate: [snake, camel]}`.
 */
export function withProtoFieldNames(body: unknown): { body: unknown } | { duplicate: readonly [string, string] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { body };
  let renamed: Record<string, unknown> | undefined;
  for (const key of Object.keys(body)) {
    const proto = CAMEL_CASE_FIELDS.get(key);
    if (proto === undefined) continue;
    if (Object.hasOwn(body, proto)) return { duplicate: [proto, key] };
    renamed ??= { ...(body as Record<string, unknown>) };
    renamed[proto] = renamed[key];
    delete renamed[key];
  }
  return { body: renamed ?? body };
}

/** Splits `rbac.DELETE` into the policy name and the action (the part after the first dot). */
export function splitPolicyPath(path: string): { policy: string; action: string } {
  const dot = path.indexOf('.');
  return { policy: path.slice(0, dot), action: path.slice(dot + 1) };
}
