import { MAX_DRIFT_METRIC_TENANTS } from '../../src/edge-drift';
import { renderDriftMetrics, renderDriftTotals, type ConnectedEdgeDrift } from '../../src/edge-drift/drift-metrics';

const current = { latestPolicyDigest: null, policyDrift: false, centralDirectoryRevision: 1, directoryLag: 0 };
const edge = (tenantId: string, drift: Partial<ConnectedEdgeDrift['drift']> = {}): ConnectedEdgeDrift => ({ tenantId, drift: { ...current, ...drift } });
const series = (text: string, name: string) => text.split('\n').filter((line) => line.startsWith(`${name}{`));

describe('renderDriftMetrics', () => {
  it('aggregates connected edges per tenant: count, edges off latest, largest directory lag', () => {
    const text = renderDriftMetrics([edge('t1'), edge('t1', { policyDrift: true, directoryLag: 3 }), edge('t1', { directoryLag: 1 }), edge('t2')]);
    expect(series(text, 'outpost_relay_edges_connected')).toEqual(['outpost_relay_edges_connected{tenant="t1"} 3', 'outpost_relay_edges_connected{tenant="t2"} 1']);
    expect(series(text, 'outpost_relay_edges_policy_drift')).toEqual(['outpost_relay_edges_policy_drift{tenant="t1"} 1', 'outpost_relay_edges_policy_drift{tenant="t2"} 0']);
    expect(series(text, 'outpost_relay_edges_directory_lag_max')).toEqual(['outpost_relay_edges_directory_lag_max{tenant="t1"} 3', 'outpost_relay_edges_directory_lag_max{tenant="t2"} 0']);
    expect(text).toContain('# TYPE outpost_relay_edges_policy_drift gauge\n');
    expect(text.endsWith('outpost_relay_drift_tenants_omitted 0\n')).toBe(true);
  });

  it(`names at most ${MAX_DRIFT_METRIC_TENANTS} tenants, drifting ones first, and counts the rest`, () => {
    const quiet = Array.from({ length: MAX_DRIFT_METRIC_TENANTS + 5 }, (_, i) => edge(`t${String(i).padStart(3, '0')}`));
    // Sorted by id it would come last; drift puts it first.
    const text = renderDriftMetrics([...quiet, edge('zz-lagging', { directoryLag: 2 }), edge('zz-drifting', { policyDrift: true })]);
    const connected = series(text, 'outpost_relay_edges_connected');
    expect(connected).toHaveLength(MAX_DRIFT_METRIC_TENANTS);
    expect(connected.slice(0, 3)).toEqual([
      'outpost_relay_edges_connected{tenant="zz-drifting"} 1',
      'outpost_relay_edges_connected{tenant="zz-lagging"} 1',
      'outpost_relay_edges_connected{tenant="t000"} 1',
    ]);
    expect(text).toContain('outpost_relay_drift_tenants_omitted 7\n');
  });

  it('escapes label values', () => {
    expect(renderDriftMetrics([edge('a"b\\c\nd')])).toContain('outpost_relay_edges_connected{tenant="a\\"b\\\\c\\nd"} 1');
  });
});

describe('renderDriftTotals', () => {
  it('sums edges and drifting edges over every tenant, takes the largest lag, and names no tenant', () => {
    const text = renderDriftTotals([edge('t1'), edge('t1', { policyDrift: true, directoryLag: 3 }), edge('t2', { policyDrift: true, directoryLag: 1 })]);
    expect(text.split('\n').filter((line) => line.startsWith('outpost_'))).toEqual([
      'outpost_relay_edges_connected 3',
      'outpost_relay_edges_policy_drift 2',
      'outpost_relay_edges_directory_lag_max 3',
    ]);
    expect(text).toContain('# TYPE outpost_relay_edges_connected gauge\n');
    expect(text).not.toMatch(/t1|t2|tenant=/);
  });

  it('answers zeros when no edge is connected', () => {
    expect(renderDriftTotals([])).toContain('\noutpost_relay_edges_connected 0\n');
  });
});
