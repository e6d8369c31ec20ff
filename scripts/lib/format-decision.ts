import type { DecisionRecord } from '../../src/relay-protocol';

/** A stored decision record as the admin API lists it (docs/reference/api.md, "Decision records"). */
export type ListedDecision = DecisionRecord & { readonly id: number; readonly instance_id: string; readonly received_at: number };

/** Who, as a person reads it: the e-mail when the record has one, else the user id. */
const who = (d: ListedDecision): string => d.principal.email ?? d.principal.id;

/** Why, in one line: each reason's comment (or policy id), `; `-separated. */
export function reasonLine(d: ListedDecision): string {
  return d.reasons.map((r) => (r.policy === null ? r.comment : `${r.comment || '(no comment)'} [${r.policy}]`)).join('; ') || '(no reason recorded)';
}

/** One record on one line: time, answer, who, what, on what, why, and where it was decided. */
export function decisionLine(d: ListedDecision): string {
  const answer = d.decision === 'allow' ? 'ALLOW' : 'DENY ';
  return `${new Date(d.time).toISOString()}  ${answer}  ${who(d)}  ${d.action} ${d.resource.type}:${d.resource.id}  — ${reasonLine(d)}  (${d.app}, request ${d.request_id})`;
}

/** One record in full, for `npm run decisions -- why`. */
export function decisionBlock(d: ListedDecision): string {
  const lines = [
    `request    ${d.request_id}`,
    `time       ${new Date(d.time).toISOString()}`,
    `decision   ${d.decision}`,
    `principal  ${d.principal.id}${d.principal.email ? ` (${d.principal.email})` : ''}`,
    `action     ${d.action}`,
    `resource   ${d.resource.type}:${d.resource.id}`,
    `decided by ${d.app} on instance ${d.instance_id}, in ${d.latency_us} µs`,
    `state      policy ${d.policy_digest}, directory revision ${d.directory_revision}`,
    'why',
    ...d.reasons.map((r) => (r.policy === null ? `  ${r.comment}` : `  ${r.policy}  ${r.comment || '(no comment above the policy)'}`)),
  ];
  return lines.join('\n');
}
