import type { DecisionRecord } from '../../src/relay-protocol';

/** A valid decision record (Rick's allowed `DELETE`), number `n` of a series, with `over` replacing members. */
export const decisionRecord = (n: number, over: Partial<DecisionRecord> = {}): DecisionRecord => ({
  time: 1_700_000_000_000 + n,
  request_id: `req-${n}`,
  app: 'rbac',
  principal: { id: 'u-rick', email: 'rick@the-citadel.com' },
  action: 'DELETE',
  resource: { type: 'Resource', id: 'x' },
  decision: 'allow',
  reasons: [{ policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' }],
  policy_digest: `sha256:${'c'.repeat(64)}`,
  directory_revision: 3,
  latency_us: 40,
  ...over,
});
