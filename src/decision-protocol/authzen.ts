import { z } from 'zod';
import { entityTypeSchema } from './entity-type';
import { freshnessFields } from './freshness-fields';

// AuthZEN Authorization API 1.0: the evaluation and evaluations endpoints and the
// PDP metadata document. Outpost maps them onto its Cedar model: subject `user` is a
// directory user (id or e-mail), `action.name` the Cedar action, `resource` a Cedar
// entity with flat properties (a todo's `owner`). Roles, relations and the directory's
// properties come from the directory, never from the caller; what the caller says —
// subject and action properties, `context` — reaches the policy as Cedar `context`.

/** Where the metadata lives (AuthZEN §9) and the two endpoints it names. */
export const AUTHZEN_PATHS = {
  configuration: '/.well-known/authzen-configuration',
  evaluation: '/access/v1/evaluation',
  evaluations: '/access/v1/evaluations',
} as const;

/** Most evaluations in one batch call (docs/reference/limits.md). */
export const MAX_EVALUATIONS = 64;

const properties = z.record(z.string().max(64), z.unknown()).optional();
const resourceProperties = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/), z.union([z.string().max(512), z.number(), z.boolean()]))
  .refine((p) => Object.keys(p).length <= 32, 'too many resource properties')
  .optional();

const subject = z.object({ type: z.string().min(1).max(64), id: z.string().min(1).max(256), properties });
const resource = z.object({ type: entityTypeSchema, id: z.string().min(1).max(128), properties: resourceProperties });
const action = z.object({ name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'action.name must be a Cedar action id such as DELETE'), properties });
const context = z.record(z.string(), z.unknown()).optional();

/** Body of `POST /access/v1/evaluation` (AuthZEN §6), plus Outpost's freshness fields. */
export const evaluationRequestSchema = z.object({ subject, action, resource, context, ...freshnessFields });
export type EvaluationRequest = z.infer<typeof evaluationRequestSchema>;

/** The three batch semantics (AuthZEN §7.1); the default executes every evaluation. */
export const EVALUATIONS_SEMANTICS = ['execute_all', 'deny_on_first_deny', 'permit_on_first_permit'] as const;

/**
 * Body of `POST /access/v1/evaluations` (AuthZEN §7): top-level subject, action, resource
 * and context are defaults that each item may replace.
 */
export const evaluationsRequestSchema = z.object({
  subject: subject.optional(),
  action: action.optional(),
  resource: resource.optional(),
  context,
  evaluations: z
    .array(z.object({ subject: subject.optional(), action: action.optional(), resource: resource.optional(), context }))
    .max(MAX_EVALUATIONS, `at most ${MAX_EVALUATIONS} evaluations per call`)
    .optional(),
  options: z.object({ evaluations_semantic: z.enum(EVALUATIONS_SEMANTICS).optional() }).catchall(z.unknown()).optional(),
  ...freshnessFields,
});
export type EvaluationsRequest = z.infer<typeof evaluationsRequestSchema>;

/** One AuthZEN question with every part present (and its context, if any). */
export type Evaluation = Pick<EvaluationRequest, 'subject' | 'action' | 'resource' | 'context'>;

/** One item of a batch: a complete question, or why it is not one. */
export type BatchItem = Evaluation | { readonly problem: string };

/**
 * The batch as questions, defaults applied: an item takes the top-level subject, action,
 * resource and context for each it leaves out (whole entities, never merged field by
 * field). An item that still lacks a part is a `problem` — under `execute_all` a `false`
 * for that item, not a 400 for the batch (the certification scenario's §3.4.1). No
 * `evaluations`, or an empty array, is `single`: the top level is the one question and the
 * answer is an evaluation's (AuthZEN §7.1, backwards compatible).
 */
export function expandEvaluations(body: EvaluationsRequest): { readonly single: boolean; readonly items: BatchItem[] } {
  const single = body.evaluations === undefined || body.evaluations.length === 0;
  const items: readonly Partial<Evaluation>[] = single ? [{}] : body.evaluations!;
  return {
    single,
    items: items.map((item, index): BatchItem => {
      const s = item.subject ?? body.subject;
      const a = item.action ?? body.action;
      const r = item.resource ?? body.resource;
      const context = item.context ?? body.context;
      if (!s || !a || !r) {
        const missing = [!s && 'subject', !a && 'action', !r && 'resource'].filter(Boolean).join(', ');
        return { problem: single ? `the request has no ${missing}` : `evaluations[${index}] has no ${missing} and no default for it` };
      }
      return { subject: s, action: a, resource: r, ...(context ? { context } : {}) };
    }),
  };
}

/** The response of `/access/v1/evaluation` (and of each batch item). */
export const evaluationResponseSchema = z.object({ decision: z.boolean(), context: z.record(z.string(), z.unknown()).optional() });

/** The PDP metadata document (AuthZEN §9). */
export const authzenConfigurationSchema = z.object({
  policy_decision_point: z.string(),
  access_evaluation_endpoint: z.string(),
  access_evaluations_endpoint: z.string(),
});
