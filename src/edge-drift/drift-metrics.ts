import { prometheusLabel } from '../observability';
import type { EdgeDrift } from './edge-drift';

/**
 * Tenants the drift gauges name, one series each per gauge: the label set grows with
 * tenants, not with edges, and stops here. Tenants with drifting edges come first, so an
 * alert is never among the omitted; the rest are counted in
 * `outpost_relay_drift_tenants_omitted`.
 */
export const MAX_DRIFT_METRIC_TENANTS = 100;

/** One connected edge: its tenant and its drift. */
export interface ConnectedEdgeDrift {
  readonly tenantId: string;
  readonly drift: EdgeDrift;
}

interface TenantDrift {
  readonly tenantId: string;
  connected: number;
  policyDrift: number;
  directoryLagMax: number;
}

/** Per tenant: connected edges, how many run another image than `latest`, the largest directory lag. */
function summarize(edges: Iterable<ConnectedEdgeDrift>): TenantDrift[] {
  const tenants = new Map<string, TenantDrift>();
  for (const { tenantId, drift } of edges) {
    let t = tenants.get(tenantId);
    if (t === undefined) {
      t = { tenantId, connected: 0, policyDrift: 0, directoryLagMax: 0 };
      tenants.set(tenantId, t);
    }
    t.connected += 1;
    if (drift.policyDrift) t.policyDrift += 1;
    t.directoryLagMax = Math.max(t.directoryLagMax, drift.directoryLag);
  }
  return [...tenants.values()].sort(
    (a, b) => b.policyDrift - a.policyDrift || b.directoryLagMax - a.directoryLagMax || (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0),
  );
}

const GAUGES = [
  ['outpost_relay_edges_connected', 'Edges connected to this relay', (t: TenantDrift) => t.connected],
  ['outpost_relay_edges_policy_drift', "Connected edges whose active policy image is not their policy's latest", (t: TenantDrift) => t.policyDrift],
  ['outpost_relay_edges_directory_lag_max', 'Largest number of directory revisions a connected edge is behind the central directory', (t: TenantDrift) => t.directoryLagMax],
] as const;

/**
 * The relay's drift gauges in the Prometheus text exposition format (version 0.0.4),
 * aggregated per tenant over the connected edges, at most {@link MAX_DRIFT_METRIC_TENANTS}
 * tenants (drifting first).
 */
export function renderDriftMetrics(edges: Iterable<ConnectedEdgeDrift>): string {
  const tenants = summarize(edges);
  const shown = tenants.slice(0, MAX_DRIFT_METRIC_TENANTS);
  const lines: string[] = [];
  for (const [name, help, value] of GAUGES) {
    lines.push(`# HELP ${name} ${help}, per tenant.`, `# TYPE ${name} gauge`);
    for (const t of shown) lines.push(`${name}{tenant="${prometheusLabel(t.tenantId)}"} ${value(t)}`);
  }
  lines.push(
    '# HELP outpost_relay_drift_tenants_omitted Tenants with connected edges left out of the per-tenant gauges (over the series bound).',
    '# TYPE outpost_relay_drift_tenants_omitted gauge',
    `outpost_relay_drift_tenants_omitted ${tenants.length - shown.length}`,
  );
  return `${lines.join('\n')}\n`;
}

/**
 * The same gauges without the tenant label, over every tenant (edges and edges off latest
 * summed, the largest lag of all): what `/metrics` tells a caller without the metrics token,
 * so tenant ids never reach anyone who can merely reach the port. An alert on drift or lag
 * works the same on these.
 */
export function renderDriftTotals(edges: Iterable<ConnectedEdgeDrift>): string {
  const total: TenantDrift = { tenantId: '', connected: 0, policyDrift: 0, directoryLagMax: 0 };
  for (const t of summarize(edges)) {
    total.connected += t.connected;
    total.policyDrift += t.policyDrift;
    total.directoryLagMax = Math.max(total.directoryLagMax, t.directoryLagMax);
  }
  const lines: string[] = [];
  for (const [name, help, value] of GAUGES) {
    lines.push(`# HELP ${name} ${help}, over all tenants (per tenant with the metrics token).`, `# TYPE ${name} gauge`, `${name} ${value(total)}`);
  }
  return `${lines.join('\n')}\n`;
}
