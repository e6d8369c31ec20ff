import { AUTHZ_ERROR_CODES, HttpError } from './errors';

/** Why a decision went as it did: the policy that determined it (`<file>:<line>`, or null) and its first comment line. */
export interface DecisionReason {
  readonly policy: string | null;
  readonly comment: string;
}

/**
 * One authorization question: may `principal` do `action` on `resource`, under the
 * policy named by `policyPath`? The principal is the directory user id (the access
 * token's `sub`); roles and relations are looked up in the directory, never the token.
 */
export interface AuthorizationRequest {
  /** Directory user id. */
  readonly principal: string;
  /** Cedar action id, e.g. `DELETE` (RBAC app) or `update` (todo app). */
  readonly action: string;
  readonly resource: {
    /** Cedar entity type, e.g. `Resource`, `todo` or `Outpost::Todo` (the schema's namespace is implied). */
    readonly type: string;
    readonly id: string;
    /** Extra facts about the resource, e.g. a todo's `owner` (a user id). */
    readonly attributes?: Readonly<Record<string, string | number | boolean>>;
  };
  /**
   * Topaz-style policy path `<policy name>.<action>`, e.g. `rbac.DELETE`. Named in
   * 403 messages and sent to the edge as `policy_context.path`.
   */
  readonly policyPath: string;
  /** The HTTP request the question comes from (`X-Request-Id`), for the decision record; never part of the answer. */
  readonly requestId?: string;
  /**
   * Facts about the request a policy may read as Cedar `context`: AuthZEN's `context`, with
   * the subject's and the action's `properties` as `subject` and `action` — what the caller
   * says, never what the directory holds. The action's declared context takes what fits it.
   */
  readonly context?: Readonly<Record<string, unknown>>;
}

export interface AuthorizationDecision {
  readonly allowed: boolean;
  readonly policyPath: string;
}

/** A decision with why: the policies that determined it and their first comment lines, or "no policy permits". */
export interface ExplainedDecision extends AuthorizationDecision {
  readonly reasons: readonly DecisionReason[];
}

/**
 * Answers authorization questions for {@link requirePermission}: Cedar in-process, an AuthZEN
 * PDP over HTTP ({@link createAuthzenAuthorizer}), or anything else that keeps this contract.
 * Implementations throw {@link AuthorizerUnavailableError} when they cannot answer — the
 * permission step then fails closed (503), never allows.
 */
export interface Authorizer {
  /** What it is, for logs and `/readyz` (e.g. `local`, `authzen`, `embedded`). */
  readonly kind: string;
  authorize(request: AuthorizationRequest): Promise<AuthorizationDecision>;
  /**
   * The same decision, made synchronously, where the authorizer decides in-process (the
   * embedded edge): the permission step then answers within the request's own tick, with no
   * promise or microtask per request (`npm run bench:apps`). It throws what `authorize`
   * would reject with. Absent where a decision has to wait (the `edge` kind). A wrapper that
   * changes `authorize` must change or leave out this too, or callers bypass the change.
   */
  authorizeNow?(request: AuthorizationRequest): AuthorizationDecision;
  /**
   * Whether it can decide now (an embedded edge: a policy and a directory are loaded; the
   * `edge` kind: the edge it asks is ready itself); absent means always.
   */
  ready?(): boolean | Promise<boolean>;
  /**
   * The same decision with its reasons, for a page that shows what its user may do and why
   * (the todo page). Writes no decision record: it answers what the app shows, not what a
   * request did. Absent where the authorizer cannot say why (the `edge` kind).
   */
  explain?(request: AuthorizationRequest): Promise<ExplainedDecision>;
  close(): Promise<void>;
}

/**
 * A resource property whose JSON type is not the one the policy schema declares (a number
 * where the schema says a user id, say): 400 `invalid_property` naming it. The caller's
 * input is wrong; reporting it as an outage (503) would send them looking in the wrong place.
 */
export class InvalidPropertyError extends HttpError {
  constructor(
    readonly property: string,
    expected: string,
  ) {
    super(AUTHZ_ERROR_CODES.invalid_property.status, 'invalid_property', `resource property "${property.slice(0, 64)}" must be ${expected}`);
  }
}
