/**
 * Drift across the chain: a real control plane and a real edge. The registrations API and
 * the control plane's `/metrics` say when the edge runs another image than `latest` or an
 * older directory revision than the centre, and stop saying it once the edge caught up.
 */
import { join } from 'node:path';
import { createPolicyImage, readPolicyFolder } from '../../src/policy';
import { admin, exec, registrations, waitFor, type RegistrationView } from './stack-client';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { METRICS_TOKEN } from './control-plane-node';
import { startStack, type Stack } from './stack-fixture';

let stack: Stack;

describe.each(SQL_ENGINES)('drift with the store on $name', (engine) => {
  beforeEach(async () => {
    stack = await startStack(engine);
    // The edge reports what it loaded in a status frame after it registered; on a busy machine
    // that can come after the stack is up, so wait for the report rather than assume it.
    await waitFor('the edge to report its first directory sync', async () => ((await driftOf()).directory_revision === 1 ? true : undefined));
  });

  afterEach(async () => {
    await stack?.close();
  });

  const run = (command: 'discovery' | 'sync_edge_directory') => exec(stack.relayUrl, stack.demo, stack.edge.instanceId, command);

  /** The primary edge's registration `info`, drift fields and what they are computed from. */
  async function driftOf(): Promise<Pick<RegistrationView['info'], 'policy_digest' | 'latest_policy_digest' | 'policy_drift' | 'directory_revision' | 'central_directory_revision' | 'directory_lag'>> {
    const mine = (await registrations(stack.relayUrl, stack.demo)).find((r) => r.id === stack.edge.instanceId)!;
    const { policy_digest, latest_policy_digest, policy_drift, directory_revision, central_directory_revision, directory_lag } = mine.info;
    return { policy_digest, latest_policy_digest, policy_drift, directory_revision, central_directory_revision, directory_lag };
  }

  /** The control plane's metrics as the operator sees them (per tenant: the metrics token). */
  const operatorMetrics = () => fetch(`${stack.relayUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });

  /** The demo tenant's series of the control plane's drift gauges. */
  async function driftGauges(): Promise<Record<string, number>> {
    const res = await operatorMetrics();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    const gauges: Record<string, number> = {};
    for (const name of ['connected', 'policy_drift', 'directory_lag_max']) {
      const match = new RegExp(`^outpost_relay_edges_${name}\\{tenant="${stack.demo.tenantId}"\\} (\\d+)$`, 'm').exec(text);
      gauges[name] = Number(match![1]);
    }
    return gauges;
  }

  it('a push not yet discovered is policy drift; discovery ends it', async () => {
    const seeded = stack.edge.edge.status().policy_digest;
    expect(await driftOf()).toEqual({ policy_digest: seeded, latest_policy_digest: seeded, policy_drift: false, directory_revision: 1, central_directory_revision: 1, directory_lag: 0 });
    expect(await driftGauges()).toEqual({ connected: 1, policy_drift: 0, directory_lag_max: 0 });
    // Anyone else who reaches the port sees the totals, never the tenant.
    const anonymous = await (await fetch(`${stack.relayUrl}/metrics`)).text();
    expect(anonymous).not.toContain(stack.demo.tenantId);
    expect(anonymous).toContain('\noutpost_relay_edges_connected 1\n');

    const rbac = readPolicyFolder(join(stack.config.policiesDir, 'rbac'));
    const files = { ...rbac.files, 'rbac.cedar': `${rbac.files['rbac.cedar']}\n// a new version\n` };
    const push = await admin(stack.relayUrl, stack.demo, 'POST', '/api/v2/admin/policies/rbac', { files });
    expect(push.status).toBe(201);
    const latest = createPolicyImage('rbac', files).digest;
    expect(await driftOf()).toMatchObject({ policy_digest: seeded, latest_policy_digest: latest, policy_drift: true });
    expect(await driftGauges()).toEqual({ connected: 1, policy_drift: 1, directory_lag_max: 0 });

    expect((await run('discovery')).status).toBe(200);
    // The exec answers once the confirmed status is stored (docs/reference/api.md, "Relay management API").
    expect(await driftOf()).toMatchObject({ policy_digest: latest, latest_policy_digest: latest, policy_drift: false });
    expect(await driftGauges()).toEqual({ connected: 1, policy_drift: 0, directory_lag_max: 0 });
  });

  it('a directory change not yet synced is a lag of one revision; sync_edge_directory ends it', async () => {
    const grant = await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    expect(grant.body).toEqual({ revision: 2 });
    expect(await driftOf()).toMatchObject({ directory_revision: 1, central_directory_revision: 2, directory_lag: 1, policy_drift: false });
    expect(await driftGauges()).toEqual({ connected: 1, policy_drift: 0, directory_lag_max: 1 });

    expect((await run('sync_edge_directory')).status).toBe(200);
    expect(await driftOf()).toMatchObject({ directory_revision: 2, central_directory_revision: 2, directory_lag: 0 });
    expect(await driftGauges()).toEqual({ connected: 1, policy_drift: 0, directory_lag_max: 0 });
  });

  it('a disconnected edge keeps its drift in the registrations but leaves the gauges', async () => {
    await admin(stack.relayUrl, stack.demo, 'PUT', '/api/v2/admin/directory/users/morty@the-citadel.com/roles/admin');
    await stack.edge.stop();
    // The relay sees the socket close a moment after the edge does.
    const gone = await waitFor('the registration to show the edge disconnected', async () =>
      (await registrations(stack.relayUrl, stack.demo)).find((r) => r.id === stack.edge.instanceId && !r.info.connected),
    );
    expect(gone.info).toMatchObject({ connected: false, directory_lag: 1 });
    const text = await (await operatorMetrics()).text();
    expect(text).not.toContain(stack.demo.tenantId);
    expect(text).toContain('outpost_relay_drift_tenants_omitted 0');
  });
});
