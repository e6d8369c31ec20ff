/**
 * Decision records end to end (docs/reference/api.md, "Decision records"): real edges — the
 * sidecar behind the RBAC app, and an RBAC app's embedded edge — ship what they decide over the
 * real relay, the control plane stores it on each engine, and the admin and console APIs list it
 * to the tenant and nobody else. With the control plane away, an edge keeps deciding and loses at
 * most its bounded queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { accessTokenMiddleware } from '../../src/apps/app-dependencies';
import { createRbacApp } from '../../src/apps/rbac';
import { openEmbeddedAuthorizer, type EmbeddedAuthorizer } from '../../src/embedded-edge';
import { createTenant } from '../../src/control-plane';
import { decisionRecords } from '../../src/decision-records';
import { CONTROL_PLANE_ROUTES } from '../openapi/control-plane-routes';
import { loadDirectorySeed } from '../../src/directory';
import { baseUrl, close, listen } from '../../src/http';
import { silentLogger } from '../../src/observability';
import { readPolicyFolder } from '../../src/policy';
import type { DecisionRecord } from '../../src/relay-protocol';
import { USERS } from '../apps/app-fixture';
import { SQL_ENGINES } from '../helpers/sql-engines';
import { expectConforms } from '../openapi/conformance';
import { admin, callResource, edgeAllows, registrations, tenantCall, waitFor, type TenantCredentials } from './stack-client';
import { consoleToken, startStack, type Stack } from './stack-fixture';

type Stored = DecisionRecord & { id: number; instance_id: string };
const ADMINS = { policy: 'rbac.cedar:19', comment: 'Admins may do everything, DELETE included.' };
const NOTHING = { policy: null, comment: 'no policy permits' };

describe.each(SQL_ENGINES)('decision records on $name', (engine) => {
  let stack: Stack;
  let dir: string;
  let embedded: EmbeddedAuthorizer;
  let embeddedApp: Server;
  let digest: string;
  const tokens: { rick?: string; morty?: string } = {};

  beforeAll(async () => {
    stack = await startStack(engine);
    dir = mkdtempSync(join(tmpdir(), 'outpost-decisions-'));
    embedded = await openEmbeddedAuthorizer({
      relayUrl: stack.relayUrl,
      ...stack.appConnections.rbac,
      dataDir: join(dir, 'embedded-rbac'),
      discoveryIntervalMs: 3_600_000,
      directorySyncIntervalMs: 3_600_000,
      fullSyncIntervalMs: 3_600_000,
      logger: silentLogger(),
      plugins: [decisionRecords({ app: 'rbac' })],
    });
    const app = createRbacApp({ authenticate: accessTokenMiddleware(stack.config), authorizer: embedded, policyName: 'rbac', logger: silentLogger() });
    embeddedApp = await listen(app, 0, '127.0.0.1');
    tokens.rick = (await stack.idp.token(USERS.rick.email)).access_token;
    tokens.morty = (await stack.idp.token(USERS.morty.email)).access_token;
    digest = readPolicyFolder(join(stack.config.policiesDir, 'rbac')).digest;
  });
  afterAll(async () => {
    if (embeddedApp) await close(embeddedApp);
    await embedded?.close();
    await stack?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function list(tenant: TenantCredentials, query: string): Promise<Stored[]> {
    const reply = await admin(stack.relayUrl, tenant, 'GET', `/api/v2/admin/decisions?${query}`);
    if (reply.status !== 200) throw new Error(`GET decisions: ${reply.status}`);
    return (reply.body as { decisions: Stored[] }).decisions;
  }
  /** The one record of `requestId`, once it is listed (polled; the bound is 1 s). */
  const recordOf = (requestId: string) => waitFor(`the record of ${requestId}`, async () => (await list(stack.demo, `request_id=${requestId}`))[0], 1_000);

  it('a DELETE by Rick and one by Morty at the sidecar are listed within 1 s, with who, what, why and the state used', async () => {
    const rick = await callResource(stack.appUrl, 'DELETE', 'mega-seed', tokens.rick!);
    const morty = await callResource(stack.appUrl, 'DELETE', 'mega-seed', tokens.morty!);
    expect([rick.status, morty.status]).toEqual([200, 403]);
    const byRick = await waitFor('Rick\'s DELETE', async () => (await list(stack.demo, `principal=${USERS.rick.email}&action=DELETE&instance=${stack.edge.instanceId}`))[0], 1_000);
    const byMorty = await waitFor('Morty\'s DELETE', async () => (await list(stack.demo, `principal=${USERS.morty.id}&decision=deny&instance=${stack.edge.instanceId}`))[0], 1_000);
    const common = { app: 'sidecar', action: 'DELETE', resource: { type: 'Resource', id: 'mega-seed' }, policy_digest: digest, instance_id: stack.edge.instanceId };
    expect(byRick).toMatchObject({ ...common, principal: { id: USERS.rick.id, email: USERS.rick.email }, decision: 'allow', reasons: [ADMINS] });
    expect(byMorty).toMatchObject({ ...common, principal: { id: USERS.morty.id, email: USERS.morty.email }, decision: 'deny', reasons: [NOTHING] });
    expect(byMorty.id).toBeGreaterThan(byRick.id);
    // The app's request id reaches the sidecar with the question: its record names the app's request.
    expect([byRick.request_id, byMorty.request_id]).toEqual([rick.headers.get('x-request-id'), morty.headers.get('x-request-id')]);
    // Never a token: the record holds ids, e-mails and policy text only.
    expect(JSON.stringify([byRick, byMorty])).not.toContain(tokens.rick!.slice(0, 20));
  });

  it("the embedded edge's records name the app and carry the app's request id", async () => {
    const url = baseUrl(embeddedApp);
    const rick = await callResource(url, 'DELETE', 'portal-gun', tokens.rick!);
    const morty = await callResource(url, 'DELETE', 'portal-gun', tokens.morty!);
    expect([rick.status, morty.status]).toEqual([200, 403]);
    const common = { app: 'rbac', action: 'DELETE', resource: { type: 'Resource', id: 'portal-gun' }, instance_id: embedded.edge.instanceId, policy_digest: digest };
    expect(await recordOf(rick.headers.get('x-request-id')!)).toMatchObject({ ...common, principal: { id: USERS.rick.id, email: USERS.rick.email }, decision: 'allow', reasons: [ADMINS] });
    expect(await recordOf(morty.headers.get('x-request-id')!)).toMatchObject({ ...common, principal: { id: USERS.morty.id }, decision: 'deny', reasons: [NOTHING] });
  });

  it('another tenant sees none of them, through the admin API or the console', async () => {
    await waitFor('a record of tenant A', async () => (await list(stack.demo, 'action=DELETE'))[0], 1_000);
    const { roles, users, resources } = loadDirectorySeed(stack.config.directorySeedFile).directory;
    const keys = await createTenant(stack.store, { name: 'tenant b', directory: { roles, users, resources } });
    const b: TenantCredentials = { ...keys, connectionId: '', connectionSecret: '' };
    expect(await list(b, '')).toEqual([]);
    expect(await list(b, `principal=${USERS.rick.id}`)).toEqual([]);
    // B's key under A's tenant id: the one 401 of every tenant surface.
    const foreign = await tenantCall(stack.relayUrl, '/api/v2/admin/decisions', { tenantId: stack.demo.tenantId, key: keys.adminApiKey, method: 'GET' });
    expect({ status: foreign.status, body: foreign.body }).toEqual({ status: 401, body: { code: 'unauthorized', message: 'missing or invalid tenant credentials' } });

    // The console: Morty, a member of the demo tenant, reads its records; B's id is a 404 to him.
    const token = await consoleToken(stack, USERS.morty.email);
    const consoleCall = (tenantId: string) =>
      expectConforms(stack.relayUrl, CONTROL_PLANE_ROUTES, { method: 'GET', path: `/console/api/tenants/${tenantId}/decisions?action=DELETE`, headers: { authorization: `Bearer ${token}` } });
    const mine = await consoleCall(stack.demo.tenantId);
    expect(mine.status).toBe(200);
    expect((mine.body as { decisions: Stored[] }).decisions.length).toBeGreaterThan(0);
    expect((await consoleCall(keys.tenantId)).status).toBe(404);
  });

  it("'Try a decision' asks the chosen edge over the relay and records nothing; the console API refuses what it must", async () => {
    const token = await consoleToken(stack, USERS.morty.email);
    const tryIt = (body: unknown, tenantId = stack.demo.tenantId) =>
      expectConforms(stack.relayUrl, CONTROL_PLANE_ROUTES, {
        method: 'POST',
        path: `/console/api/tenants/${tenantId}/decisions/try`,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const ask = (principal: string) => ({ instance_id: stack.edge.instanceId, principal, action: 'DELETE', resource: { type: 'Resource', id: 'tried-only' } });
    const rick = await tryIt(ask(USERS.rick.email));
    expect({ status: rick.status, body: rick.body }).toEqual({
      status: 200,
      body: { principal: { id: USERS.rick.id, email: USERS.rick.email }, decision: 'allow', reasons: [ADMINS], policy_digest: digest, directory_revision: expect.any(Number) },
    });
    const morty = await tryIt(ask(USERS.morty.id));
    expect(morty.body).toMatchObject({ decision: 'deny', reasons: [NOTHING] });
    expect((await tryIt({ ...ask(USERS.rick.id), instance_id: 'no-such-edge' })).status).toBe(404);
    expect((await tryIt({ ...ask(USERS.rick.id), action: '' })).status).toBe(400);
    expect((await tryIt({ ...ask(USERS.rick.id), extra: true })).status).toBe(400);
    // A real decision made after the tries arrives; the tries, shipped before it if at all, are not there.
    expect(await edgeAllows(stack.edge.url, { type: 'SUB', value: USERS.beth.id }, 'rbac.GET', 'after-tries')).toBe(true);
    await waitFor('the decision after the tries', async () => (await list(stack.demo, 'resource=after-tries'))[0], 1_000);
    expect(await list(stack.demo, 'resource=tried-only')).toEqual([]);
  });

  it('streams new records to a member as server-sent events, resuming after an id; refuses a bad query and a non-member', async () => {
    const token = await consoleToken(stack, USERS.morty.email);
    const open = (tenantId: string, query: string, signal?: AbortSignal) =>
      fetch(`${stack.relayUrl}/console/api/tenants/${tenantId}/decisions/stream?${query}`, { headers: { authorization: `Bearer ${token}` }, ...(signal ? { signal } : {}) });
    const bad = await open(stack.demo.tenantId, 'decision=maybe');
    expect({ status: bad.status, body: await bad.json() }).toEqual({ status: 400, body: { code: 'bad_request', message: 'decision must be allow or deny' } });
    const { roles, users, resources } = loadDirectorySeed(stack.config.directorySeedFile).directory;
    const other = await createTenant(stack.store, { name: 'not morty\'s', directory: { roles, users, resources } });
    expect((await open(other.tenantId, '')).status).toBe(404);

    const [newest] = await list(stack.demo, 'limit=1');
    const controller = new AbortController();
    const res = await open(stack.demo.tenantId, `after=${newest!.id}&resource=streamed`, controller.signal);
    expect([res.status, res.headers.get('content-type')]).toEqual([200, 'text/event-stream; charset=utf-8']);
    expect(await edgeAllows(stack.edge.url, { type: 'SUB', value: USERS.rick.id }, 'rbac.DELETE', 'streamed')).toBe(true);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('event: decision')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended: ${text}`);
      text += value;
    }
    controller.abort();
    const event = /event: decision\nid: (\d+)\ndata: (.+)\n/.exec(text)!;
    const record = JSON.parse(event[2]!) as Stored;
    expect(record).toMatchObject({ id: Number(event[1]), principal: { id: USERS.rick.id }, resource: { type: 'Resource', id: 'streamed' }, decision: 'allow', reasons: [ADMINS] });
  });

  it('refuses a bad or unknown query parameter with 400', async () => {
    for (const query of ['decision=maybe', 'limit=0', 'limit=501', 'before=x', 'since=yesterday', 'colour=red', 'before=1&after=2']) {
      const reply = await expectConforms(stack.relayUrl, CONTROL_PLANE_ROUTES, {
        method: 'GET',
        path: `/api/v2/admin/decisions?${query}`,
        headers: { 'service-tenant-id': stack.demo.tenantId, authorization: `basic ${stack.demo.adminApiKey}` },
      });
      expect({ query, status: reply.status, code: (reply.body as { code: string }).code }).toEqual({ query, status: 400, code: 'bad_request' });
    }
  });

  it('with the control plane down the edge keeps deciding, and loses at most its bounded queue', async () => {
    const connection = await stack.store.tenants.addConnection(stack.demo.tenantId, 'rbac');
    const smallRecords = decisionRecords({ app: 'small', capacity: 50 });
    const small = await openEmbeddedAuthorizer({
      relayUrl: stack.relayUrl,
      ...connection,
      dataDir: join(dir, 'small-queue'),
      discoveryIntervalMs: 3_600_000,
      directorySyncIntervalMs: 3_600_000,
      fullSyncIntervalMs: 3_600_000,
      logger: silentLogger(),
      plugins: [smallRecords],
    });
    let down = false;
    try {
      // Registered first: the outage starts with the edge connected, as in production.
      await waitFor('the registration', async () => ((await registrations(stack.relayUrl, stack.demo)).some((r) => r.id === small.edge.instanceId && r.info.connected) ? true : undefined));
      await stack.stopControlPlane();
      down = true;
      const request = (n: number) => ({ principal: USERS.rick.id, action: 'GET', resource: { type: 'Resource', id: 'x' }, policyPath: 'rbac.GET', requestId: `outage-${n}` });
      for (let n = 0; n < 200; n++) expect((await small.authorize(request(n))).allowed).toBe(true);
      // The sidecar too: it answers from its last good state.
      expect(await edgeAllows(stack.edge.url, { type: 'SUB', value: USERS.rick.id }, 'rbac.DELETE', 'x')).toBe(true);
      const metrics = small.edge.metrics();
      expect(metrics).toContain('outpost_edge_decision_records_queued 50\n');
      expect(metrics).toContain('outpost_edge_decision_records_dropped_total 150\n');

      await stack.startControlPlane();
      down = false;
      const shipped = await waitFor(
        'the queued records',
        async () => {
          const page = await list(stack.demo, `instance=${small.edge.instanceId}&limit=500`);
          return page.length >= 50 ? page : undefined;
        },
        10_000,
      );
      // The newest 50 arrived, each once; the 150 before them were dropped at the edge.
      expect(shipped.map((r) => r.request_id).sort()).toEqual(Array.from({ length: 50 }, (_, i) => `outage-${150 + i}`).sort());
      expect(smallRecords.log.size).toBe(0);
    } finally {
      await small.close();
      if (down) await stack.startControlPlane();
    }
  });
});
