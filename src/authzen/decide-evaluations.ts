import type { BatchItem, Evaluation, EVALUATIONS_SEMANTICS } from '../decision-protocol';
import type { AuthorizationRequest, LocalDecision } from '../decision';
import type { DirectoryData } from '../directory';
import { BadRequestError, HttpError } from '../http';
import { toAuthorizationRequest } from './authzen-request';
import { type EdgeRuntime, requireReady } from '../edge';

/**
 * The AuthZEN subject types Outpost's directory answers for: `user` names a user by its id,
 * e-mail or any of its identities; `identity` (the AuthZEN API-gateway scenario's type)
 * names it by one of its `identities` only — an IdP's subject such as a Dex id, as a
 * gateway takes it from a token's `sub`. An identity no user holds is no one: denied.
 */
const USER = 'user';
const IDENTITY = 'identity';

/** The user id the directory gives `identity` as one of a user's `identities`, or '' (no user has that id: denied as unknown). */
function userOfIdentity(directory: DirectoryData, identity: string): string {
  let index = identityOwners.get(directory);
  if (!index) {
    const built = new Map<string, string>();
    for (const u of directory.users) for (const id of u.identities ?? []) if (!built.has(id)) built.set(id, u.id);
    identityOwners.set(directory, built);
    index = built;
  }
  return index.get(identity) ?? '';
}
const identityOwners = new WeakMap<DirectoryData, ReadonlyMap<string, string>>();

/** Stops a batch early: after the first deny, or the first permit, or never (AuthZEN §7.1). */
const stopsAfter = {
  execute_all: () => false,
  deny_on_first_deny: (allowed: boolean) => !allowed,
  permit_on_first_permit: (allowed: boolean) => allowed,
} as const satisfies Record<(typeof EVALUATIONS_SEMANTICS)[number], (allowed: boolean) => boolean>;

/** One item's answer: a decision, or the client error that made it a `false`. */
export interface ItemOutcome {
  readonly item: BatchItem;
  readonly allowed: boolean;
  readonly decision?: LocalDecision;
  /** The decision core's request the item became, and how long deciding it took (for its decision record). */
  readonly request?: AuthorizationRequest;
  readonly latencyMs?: number;
  readonly error?: { readonly status: number; readonly message: string };
}

/** What a set of answers was decided from, for the response headers and the log. */
export interface DecidedFrom {
  readonly policyDigest: string;
  readonly directoryRevision: number;
}

/** One question decided: the request it became, the decision, and how long deciding took. */
export interface Decided {
  readonly request: AuthorizationRequest;
  readonly decision: LocalDecision;
  readonly latencyMs: number;
}

function decideOne(runtime: EdgeRuntime, q: Evaluation, policyName: string, directory: DirectoryData): Decided {
  const { type } = q.subject;
  if (type !== USER && type !== IDENTITY) throw new BadRequestError(`unknown subject type "${type.slice(0, 64)}"; this edge knows "${USER}" and "${IDENTITY}"`, 'unknown_subject_type');
  const asked = toAuthorizationRequest(q, policyName, directory);
  const request = type === IDENTITY ? { ...asked, principal: userOfIdentity(directory, q.subject.id) } : asked;
  const started = performance.now();
  const decision = runtime.authorizer.decideNow(request);
  return { request, decision, latencyMs: performance.now() - started };
}

/**
 * Decides AuthZEN questions against ONE snapshot of the policy and directory — all in one
 * synchronous step, so a swap cannot split them. An item that is not a whole question, or
 * that a client error stops (an unknown subject type, a property of the wrong type), is a
 * `false` carrying that error, as AuthZEN §7.2 ("Errors in individual evaluations") has it;
 * anything else (the edge cannot decide) fails the whole call. `semantic` may stop early.
 */
export function decideEvaluations(
  runtime: EdgeRuntime,
  items: readonly BatchItem[],
  semantic: keyof typeof stopsAfter,
): { readonly outcomes: ItemOutcome[]; readonly from: DecidedFrom } {
  const { policy, directory } = requireReady(runtime.state);
  const outcomes: ItemOutcome[] = [];
  for (const item of items) {
    let outcome: ItemOutcome;
    if ('problem' in item) outcome = { item, allowed: false, error: { status: 400, message: item.problem } };
    else {
      try {
        const { request, decision, latencyMs } = decideOne(runtime, item, policy.image.name, directory);
        outcome = { item, allowed: decision.allowed, decision, request, latencyMs };
      } catch (err) {
        if (!(err instanceof HttpError) || err.status >= 500) throw err;
        outcome = { item, allowed: false, error: { status: err.status, message: err.message } };
      }
    }
    outcomes.push(outcome);
    if (stopsAfter[semantic](outcome.allowed)) break;
  }
  const first = outcomes.find((o) => o.decision)?.decision;
  return { outcomes, from: { policyDigest: first?.policyDigest ?? policy.image.digest, directoryRevision: first?.directoryRevision ?? directory.revision } };
}

/** One evaluation: its decision, or its client error thrown (a single question's 400). */
export function decideEvaluation(runtime: EdgeRuntime, q: Evaluation): Decided {
  const { policy, directory } = requireReady(runtime.state);
  return decideOne(runtime, q, policy.image.name, directory);
}
