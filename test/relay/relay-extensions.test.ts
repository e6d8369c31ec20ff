/**
 * The relay's extension hook (RelayDeps.extensions): built with none, the relay serves the
 * seed's management API alone — exec and the §4.3 listing with the seed's fields — and knows
 * no broadcast and no /metrics (404, as any unknown route); an extension's router, command
 * routes and listing fields are served where the hook says; the default composition
 * (src/control-plane-server) appends the drift fields after the seed's, in their old order.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { createControlPlaneApp, createControlPlaneRelay, openControlPlaneStore, type ControlPlaneStore } from '../../src/control-plane';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { signedImagePushCheck } from '../../src/signing-keys';
import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH, type Relay, type RelayExtension } from '../../src/relay';
import { BROADCAST_PATH, METRICS_PATH } from '../../src/relay-protocol';
import { FakeEdge } from './fake-edge';
import { startRelayKit } from './relay-kit';

const SEED_FIELDS = ['connection_id', 'hostname', 'version', 'policy_name', 'policy_digest', 'directory_revision', 'connected', 'connected_at', 'last_seen'];
const DRIFT_FIELDS = ['latest_policy_digest', 'policy_drift', 'central_directory_revision', 'directory_lag'];

interface Stack {
  readonly relay: Relay;
  readonly url: string;
  readonly tenant: { tenantId: string; discoveryApiKey: string };
  readonly edge: FakeEdge;
  stop(): Promise<void>;
}

/** A control plane with a relay built by `createControlPlaneRelay` with `extensions`, and one connected fake edge. */
async function startStack(extensions?: readonly RelayExtension[]): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-relay-ext-'));
  const store: ControlPlaneStore = await openControlPlaneStore(join(dir, 'control-plane.sqlite'));
  const keys = await store.tenants.create('tenant');
  const connection = await store.tenants.addConnection(keys.tenantId, 'rbac');
  const relay = await createControlPlaneRelay({ store, logger: silentLogger(), execTimeoutMs: 10_000, heartbeatMs: 60_000, ...(extensions ? { extensions } : {}) });
  const server: Server = await listen(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store, logger: silentLogger(), routers: [relay.managementRouter], bareExec: relay }), 0, '127.0.0.1');
  relay.attach(server);
  const url = baseUrl(server);
  const edge = await FakeEdge.connect({ baseUrl: url, connectionId: connection.connectionId, secret: connection.connectionSecret, instanceId: 'edge-1' });
  return {
    relay,
    url,
    tenant: keys,
    edge,
    async stop() {
      await edge.close();
      await relay.close();
      server.closeAllConnections();
      await close(server);
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function call(stack: Stack, path: string, body?: unknown): Promise<Response> {
  return fetch(`${stack.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      'service-tenant-id': stack.tenant.tenantId,
      authorization: `basic ${stack.tenant.discoveryApiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function infoKeys(res: Response): Promise<string[]> {
  expect(res.status).toBe(200);
  const { result } = (await res.json()) as { result: { info: Record<string, unknown> }[] };
  expect(result).toHaveLength(1);
  return Object.keys(result[0]!.info);
}

describe('a relay with no extensions', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(() => stack.stop());

  it("serves exec and the listing with the seed's fields only", async () => {
    const exec = await call(stack, EXEC_PATH, { id: 'edge-1', command: { discovery: {} } });
    expect({ status: exec.status, body: await exec.json() }).toEqual({ status: 200, body: { result: {} } });
    expect(stack.edge.commands).toHaveLength(1);
    expect(await infoKeys(await call(stack, INSTANCE_REGISTRATIONS_PATH))).toEqual(SEED_FIELDS);
    expect((await stack.relay.registrations(stack.tenant.tenantId, {})).result.map((r) => Object.keys(r.info))).toEqual([SEED_FIELDS]);
    expect(stack.relay.commandRoutes.map((route) => route.path)).toEqual([EXEC_PATH]);
  });

  it('answers 404 for the broadcast and /metrics, as for any route it does not have', async () => {
    const broadcast = await call(stack, BROADCAST_PATH, { command: { discovery: {} } });
    expect({ status: broadcast.status, code: ((await broadcast.json()) as { code: string }).code }).toEqual({ status: 404, code: 'not_found' });
    const metrics = await fetch(`${stack.url}${METRICS_PATH}`);
    expect({ status: metrics.status, code: ((await metrics.json()) as { code: string }).code }).toEqual({ status: 404, code: 'not_found' });
    expect(stack.edge.commands).toHaveLength(1);
  });
});

describe('an extension', () => {
  const seen: string[] = [];
  const probe: RelayExtension = {
    name: 'probe',
    start(view) {
      const router = express
        .Router()
        .get('/probe', (_req, res) => void res.json({ held: [...view.held()].map((s) => s.key!.instanceId), timeout: view.execTimeoutMs }))
        .get('/probe/tenant', view.requireDiscoveryKey, (_req, res) => void res.json({ tenant: res.locals.tenantId as string }));
      return {
        router,
        commandRoutes: [{ path: '/probe/command', limitBytes: 64, run: async (tenantId, body) => ({ headers: { 'Cache-Control': 'no-store' }, body: { tenantId, body } }) }],
        async registrationInfo(page) {
          seen.push(...page.map((r) => r.instanceId));
          // `connected` tries to replace a seed field: the listing keeps the seed's.
          return page.map((r) => ({ probed: r.instanceId.toUpperCase(), connected: 'overwritten' }));
        },
      };
    },
  };
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack([probe]);
  });
  afterAll(() => stack.stop());

  it("mounts its router, serves its commands behind the Discovery key and exec's checks, and appends its fields after the seed's", async () => {
    expect(await (await fetch(`${stack.url}/probe`)).json()).toEqual({ held: ['edge-1'], timeout: 10_000 });
    // A route of its own behind the relay's Discovery key check, which the view lends it.
    expect((await fetch(`${stack.url}/probe/tenant`)).status).toBe(401);
    expect(await (await call(stack, '/probe/tenant')).json()).toEqual({ tenant: stack.tenant.tenantId });
    const command = await call(stack, '/probe/command', { x: 1 });
    expect({ status: command.status, cache: command.headers.get('cache-control'), body: await command.json() }).toEqual({
      status: 200,
      cache: 'no-store',
      body: { tenantId: stack.tenant.tenantId, body: { x: 1 } },
    });
    expect((await fetch(`${stack.url}/probe/command`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect((await call(stack, '/probe/command', { padding: 'x'.repeat(100) })).status).toBe(413);
    expect(stack.relay.commandRoutes.map((route) => route.path)).toEqual([EXEC_PATH, '/probe/command']);
    const listing = await call(stack, INSTANCE_REGISTRATIONS_PATH);
    expect(await infoKeys(listing.clone())).toEqual([...SEED_FIELDS, 'probed']);
    const info = ((await listing.json()) as { result: { info: { probed: string; connected: unknown } }[] }).result[0]!.info;
    expect([info.probed, info.connected]).toEqual(['EDGE-1', true]);
    expect(seen).toEqual(['edge-1']);
  });
});

it('the default composition (src/control-plane-server) appends the drift fields after the seed fields, in their order', async () => {
  const kit = await startRelayKit();
  try {
    await kit.edge(kit.a, { instanceId: 'edge-a' });
    expect(await infoKeys(await kit.call(INSTANCE_REGISTRATIONS_PATH))).toEqual([...SEED_FIELDS, ...DRIFT_FIELDS]);
    expect(kit.relay.commandRoutes.map((route) => route.path)).toEqual([EXEC_PATH, BROADCAST_PATH]);
  } finally {
    await kit.stop();
  }
});
