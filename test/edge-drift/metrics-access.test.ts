/**
 * The control plane's `/metrics` is on the port browsers and edges reach, so it never names a
 * tenant to an anonymous caller: without credentials it answers totals over every tenant;
 * the per-tenant series need `Authorization: Bearer <METRICS_TOKEN>`.
 */
import { startRelayKit, type RelayKit } from '../relay/relay-kit';

const TOKEN = 'mt_0123456789abcdefghijklmnopqrstuvwxyz';
let kit: RelayKit;
afterEach(async () => {
  await kit?.stop();
});

/** Two tenants, one edge each; the relay configured with `metricsToken`. */
async function withEdges(metricsToken?: string): Promise<void> {
  kit = await startRelayKit(metricsToken === undefined ? {} : { metricsToken });
  await kit.edge(kit.a);
  await kit.edge(kit.b);
}

const metrics = (authorization?: string) => fetch(`${kit.url}/metrics`, { headers: authorization === undefined ? {} : { authorization } });

describe('GET /metrics', () => {
  it.each([
    ['no token is configured', undefined],
    ['a token is configured', TOKEN],
  ])('names no tenant to an anonymous caller when %s: totals over every tenant', async (_label, token) => {
    await withEdges(token);
    const res = await metrics();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers.get('vary')).toBe('Authorization');
    const text = await res.text();
    expect(text).not.toContain(kit.a.tenantId);
    expect(text).not.toContain(kit.b.tenantId);
    expect(text).not.toContain('tenant=');
    // The fake edges report an image the registry does not have, so both count as drifting.
    expect(text.split('\n').filter((line) => line.startsWith('outpost_relay_'))).toEqual([
      'outpost_relay_edges_connected 2',
      'outpost_relay_edges_policy_drift 2',
      'outpost_relay_edges_directory_lag_max 0',
    ]);
  });

  it('names each tenant to the bearer of the metrics token', async () => {
    await withEdges(TOKEN);
    const res = await metrics(`Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const tenant of [kit.a, kit.b]) expect(text).toContain(`outpost_relay_edges_connected{tenant="${tenant.tenantId}"} 1\n`);
    expect(text).toContain('outpost_relay_drift_tenants_omitted 0\n');
  });

  it.each([
    ['a wrong token', TOKEN, `Bearer ${TOKEN}x`],
    ['a token when none is configured', undefined, `Bearer ${TOKEN}`],
  ])('refuses %s with 401 invalid_token', async (_label, configured, authorization) => {
    await withEdges(configured);
    const res = await metrics(authorization);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="outpost-metrics", error="invalid_token", error_description="the metrics token is not valid"');
    expect(await res.json()).toEqual({ error: 'invalid_token', error_description: 'the metrics token is not valid' });
  });

  it('refuses another scheme with 401 and a malformed header with 400, never falling back to the totals', async () => {
    await withEdges(TOKEN);
    const basic = await metrics(`Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}`);
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe('Bearer realm="outpost-metrics"');
    const malformed = await metrics(`Bearer ${TOKEN} extra`);
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toBe('invalid_request');
  });
});
