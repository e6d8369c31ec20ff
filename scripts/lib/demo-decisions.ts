import { callTenantApi } from './call-tenant-api';
import { decisionLine, type ListedDecision } from './format-decision';
import type { TenantCredentials } from './tenant-credentials';

const PATH = '/api/v2/admin/decisions';
/** How long the demo waits for its decisions to reach the control plane (an edge ships every 200 ms). */
const WAIT_MS = 5_000;

type Page = { decisions: ListedDecision[]; next: number | null };

/** The id of the tenant's newest decision record now (0 when it has none): the demo's own come after it. */
export async function newestDecisionId(admin: TenantCredentials): Promise<number> {
  return (await callTenantApi<Page>(admin, { method: 'GET', path: `${PATH}?limit=1` })).body.decisions[0]?.id ?? 0;
}

/**
 * Prints the decisions edge `instanceId` recorded after record `after`, oldest first, with their
 * reasons (docs/reference/api.md, "Decision records"): waits until `expected` have arrived, or
 * {@link WAIT_MS}, then prints what there is.
 */
export async function printDemoDecisions(admin: TenantCredentials, instanceId: string, after: number, expected: number): Promise<void> {
  const started = Date.now();
  const query = `${PATH}?instance=${encodeURIComponent(instanceId)}&after=${after}&limit=500`;
  let decisions: ListedDecision[] = [];
  for (;;) {
    decisions = (await callTenantApi<Page>(admin, { method: 'GET', path: query })).body.decisions;
    if (decisions.length >= expected || Date.now() - started > WAIT_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  for (const d of decisions) console.log(`   ${decisionLine(d)}`);
  if (decisions.length < expected) console.log(`   (${decisions.length} of ${expected} arrived within ${WAIT_MS / 1000} s; the rest are on their way, or the edge's queue dropped them)`);
  const last = decisions.at(-1);
  if (last) console.log(`   One in full: npm run decisions -- why ${last.request_id}`);
}
