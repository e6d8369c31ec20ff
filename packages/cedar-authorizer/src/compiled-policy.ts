import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { PolicySchemaInfo } from './describe-schema';

/** A Cedar entity reference: fully qualified type (e.g. `Outpost::User`) and id. */
export interface EntityRef {
  readonly type: string;
  readonly id: string;
}

/** One question for a compiled policy. `action` is the bare action id, e.g. `DELETE`. */
export interface PolicyRequest {
  readonly principal: EntityRef;
  readonly action: string;
  readonly resource: EntityRef;
  /**
   * The request's context as JSON (AuthZEN `context`, with the subject's and the action's
   * `properties`); the action's declared context takes what fits it and ignores the rest.
   */
  readonly context?: Readonly<Record<string, unknown>>;
  /** The principal, the resource and their ancestors; nothing else is needed. */
  readonly entities: readonly EntityJson[];
}

/**
 * Cedar's answer. `reasons` are the ids (`<file>:<line>`) of the policies that decided;
 * `errors` are policies that failed to evaluate (Cedar skips them).
 */
export interface PolicyAnswer {
  readonly allowed: boolean;
  readonly reasons: readonly string[];
  readonly errors: readonly string[];
}

/** A validated policy image, pre-parsed once, ready to answer requests. */
export interface CompiledPolicy {
  readonly name: string;
  readonly digest: string;
  readonly description: string;
  readonly schema: PolicySchemaInfo;
  /** `<file>:<line>` of every policy, in file order. */
  readonly policyIds: readonly string[];
  /**
   * False when no policy reads the resource beyond its type (unconstrained or `is T` in
   * the scope, never `resource` in a condition): every resource of one type then gets the
   * same decision. Worked out on first use, true when in doubt.
   */
  readonly readsResource: boolean;
  /**
   * What of a request's `context` Cedar is given for `action`, as one string: the attributes
   * the action's schema declares (undeclared ones left out, in nested records too), exactly as
   * {@link isAuthorized} hands them to Cedar, object keys sorted; `''` when that leaves nothing,
   * or `!` and the refusal when the context is no JSON value. Two contexts with the same string
   * are the same request to Cedar, so a decision cache keys on this, not on the context as sent.
   */
  contextKey(action: string, context: unknown): string;
  /**
   * Evaluates against the pre-parsed set. A request Cedar refuses against the schema (its
   * context, an enum id) is a deny with Cedar's error; throws `PolicyEvaluationError` if
   * Cedar cannot answer (entities that break the schema, a released image).
   */
  isAuthorized(request: PolicyRequest): PolicyAnswer;
  /** Frees the pre-parsed set once no other compilation of the same digest holds it. */
  release(): void;
}
