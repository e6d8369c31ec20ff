import { z } from 'zod';
import { entityTypeSchema } from './entity-type';
import { freshnessFields } from './freshness-fields';
import { POLICY_PATH_PATTERN } from './policy-name';

/** Identity types of the Topaz authorizer API; the short forms are accepted as aliases. */
export const IDENTITY_TYPES = ['IDENTITY_TYPE_SUB', 'IDENTITY_TYPE_JWT', 'IDENTITY_TYPE_NONE'] as const;
export type IdentityType = (typeof IDENTITY_TYPES)[number];

const identityType = z
  .enum([...IDENTITY_TYPES, 'SUB', 'JWT', 'NONE'])
  .transform((t): IdentityType => (t.startsWith('IDENTITY_TYPE_') ? (t as IdentityType) : `IDENTITY_TYPE_${t as 'SUB' | 'JWT' | 'NONE'}`));

const attributeValue = z.union([z.string().max(512), z.number(), z.boolean()]);

/**
 * Body of `POST /api/v2/authz/is`, in the shape of Topaz's `Is` call:
 * `identity_context` says who asks, `policy_context.path` names `<policy>.<action>` and
 * `decisions` the decisions wanted (Outpost's policies decide `allowed`),
 * `resource_context` the resource (`type`, `id`, plus flat attributes such as `owner`).
 * The freshness fields are Outpost's own (see {@link freshnessFields}).
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

/** Splits `rbac.DELETE` into the policy name and the action (the part after the first dot). */
export function splitPolicyPath(path: string): { policy: string; action: string } {
  const dot = path.indexOf('.');
  return { policy: path.slice(0, dot), action: path.slice(dot + 1) };
}
