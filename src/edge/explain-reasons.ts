import { EXPLAIN_HEADER, EXPLAIN_REASONS } from '../decision-protocol';
import { BadRequestError } from '../http';
import { explainDecision, NO_POLICY_PERMITS, type LocalDecision } from '@outpost/cedar-authorizer';
import type { DecisionReason } from '@outpost/express-authz';
import type { ActivePolicy } from './edge-state';
import type { DecisionInput } from './decision-support';

/** True when the caller asked for reasons (`Outpost-Explain: reasons`); 400 for any other value. */
export function wantsReasons(input: DecisionInput): boolean {
  const value = input.header(EXPLAIN_HEADER);
  if (value === undefined) return false;
  if (value.trim().toLowerCase() !== EXPLAIN_REASONS) throw new BadRequestError(`${EXPLAIN_HEADER} takes "${EXPLAIN_REASONS}"`, 'invalid_explain');
  return true;
}

/**
 * The reasons of `decision`, with comment lines from the image it was made with. The policy
 * is read in the same synchronous step as the decision, so it is that image; should it not be
 * (a decision that names another digest), the ids stay and the comments are left empty.
 */
export function reasonsOf(decision: LocalDecision, policy: ActivePolicy | undefined): DecisionReason[] {
  const files = policy !== undefined && policy.image.digest === decision.policyDigest ? policy.image.files : {};
  return explainDecision(files, decision);
}

/** One sentence for people: "permitted by rbac.cedar:18 (Admins may do everything.)" or "denied: no policy permits". */
export function reasonText(allowed: boolean, reasons: readonly DecisionReason[]): string {
  const named = reasons.filter((r) => r.policy !== null).map((r) => (r.comment === '' ? r.policy! : `${r.policy} (${r.comment})`));
  if (named.length === 0) return allowed ? 'permitted' : `denied: ${NO_POLICY_PERMITS}`;
  return `${allowed ? 'permitted by' : 'forbidden by'} ${named.join('; ')}`;
}

/**
 * The AuthZEN response `context` with the reasons (AuthZEN 1.0 leaves `context` to the PDP;
 * `reason_admin` is the name its examples use): `{reason_admin: {en: …}, reasons: […]}`.
 */
export function authzenReasonContext(allowed: boolean, reasons: readonly DecisionReason[]): { reason_admin: { en: string }; reasons: readonly DecisionReason[] } {
  return { reason_admin: { en: reasonText(allowed, reasons) }, reasons };
}
