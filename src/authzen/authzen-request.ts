import type { AuthorizationRequest } from '../decision';
import { resolveUserId, type DirectoryData } from '../directory';

/** An AuthZEN question with every part present (an evaluation, a batch item, a search candidate). */
export interface AuthzenQuestion {
  readonly subject: { readonly id: string; readonly properties?: Readonly<Record<string, unknown>> | undefined };
  readonly action: { readonly name: string; readonly properties?: Readonly<Record<string, unknown>> | undefined };
  readonly resource: { readonly type: string; readonly id: string; readonly properties?: Readonly<Record<string, string | number | boolean>> | undefined };
  readonly context?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The Cedar context of a question: AuthZEN's `context`, plus the subject's and the action's
 * `properties` as `subject` and `action` (these two names are the protocol's: a caller's
 * `context.subject` is replaced). Absent when there is nothing to say.
 */
function contextOf(q: AuthzenQuestion): Record<string, unknown> | undefined {
  const { context } = q;
  const subject = q.subject.properties;
  const action = q.action.properties;
  if (context === undefined && subject === undefined && action === undefined) return undefined;
  return { ...context, ...(subject ? { subject } : {}), ...(action ? { action } : {}) };
}

/**
 * The decision core's request for one AuthZEN question under `policyName`: the subject's
 * id resolved to a directory user, the action as the Cedar action, the resource's
 * properties as its attributes, the rest as Cedar `context` ({@link contextOf}).
 * Evaluations and searches both ask through it, so a search returns exactly what
 * evaluating each candidate decides.
 */
export function toAuthorizationRequest(q: AuthzenQuestion, policyName: string, directory: DirectoryData): AuthorizationRequest {
  const context = contextOf(q);
  return {
    principal: resolveUserId(directory, q.subject.id),
    action: q.action.name,
    resource: { type: q.resource.type, id: q.resource.id, attributes: q.resource.properties ?? {} },
    policyPath: `${policyName}.${q.action.name}`,
    ...(context ? { context } : {}),
  };
}
