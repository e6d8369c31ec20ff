import express from 'express';
import type { Registration, RelayExtension, RelayView } from '../relay';
import { METRICS_PATH } from '../relay-protocol';
import { renderDriftMetrics, renderDriftTotals, type ConnectedEdgeDrift } from './drift-metrics';
import { edgeDrift, memoizeDesiredState, type DesiredStateLookup } from './edge-drift';
import { metricsView } from './metrics-view';

/** Options of {@link edgeDriftExtension}. */
export interface EdgeDriftOptions {
  /** What each edge should run (its policy's `latest`, the central directory revision); the control plane's process supplies it. */
  readonly desiredState: DesiredStateLookup;
  /** `METRICS_TOKEN`: shows `/metrics` per tenant to its bearer; unset, `/metrics` names no tenant to anyone. */
  readonly metricsToken?: string;
}

/** The stored registrations of the edges this node holds a live socket for. */
async function connectedRegistrations(view: RelayView): Promise<Registration[]> {
  const keys = [...view.held()].map((session) => session.key!);
  const found: Registration[] = [];
  for (const key of keys) {
    const registration = await view.registrations.get(key);
    if (registration) found.push(registration);
  }
  return found;
}

/**
 * Drift, plugged into the relay's extension hook: each registration of the §4.3 listing gains
 * `latest_policy_digest`, `policy_drift`, `central_directory_revision` and `directory_lag`
 * (docs/reference/api.md, "Relay management API"), and `GET /metrics` serves the drift gauges
 * (totals without credentials, per tenant with the metrics token).
 */
export function edgeDriftExtension(options: EdgeDriftOptions): RelayExtension {
  return {
    name: 'drift',
    start(view) {
      const router = express.Router();
      router.get(METRICS_PATH, async function driftMetrics(req, res) {
        // Checked first: a refused caller costs no store reads.
        const shown = metricsView(req.headersDistinct.authorization, options.metricsToken);
        const desired = memoizeDesiredState(options.desiredState);
        const edges: ConnectedEdgeDrift[] = [];
        for (const r of await connectedRegistrations(view)) {
          edges.push({ tenantId: r.tenantId, drift: edgeDrift(r, await desired(r.tenantId, r.connectionId)) });
        }
        const text = shown === 'per-tenant' ? renderDriftMetrics(edges) : renderDriftTotals(edges);
        res.set({ 'Cache-Control': 'no-store', Vary: 'Authorization' }).type('text/plain; version=0.0.4; charset=utf-8').send(text);
      });
      return {
        router,
        async registrationInfo(page) {
          // One lookup per connection of the page, not per edge.
          const desired = memoizeDesiredState(options.desiredState);
          const fields: Readonly<Record<string, unknown>>[] = [];
          for (const r of page) {
            const drift = edgeDrift(r, await desired(r.tenantId, r.connectionId));
            fields.push({
              latest_policy_digest: drift.latestPolicyDigest,
              policy_drift: drift.policyDrift,
              central_directory_revision: drift.centralDirectoryRevision,
              directory_lag: drift.directoryLag,
            });
          }
          return fields;
        },
      };
    },
  };
}
