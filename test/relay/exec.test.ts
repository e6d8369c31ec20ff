import { EXEC_PATH, INSTANCE_REGISTRATIONS_PATH } from '../../src/relay';
import { EDGE_ERROR_MESSAGE } from './fake-edge';
import { startRelayKit } from './relay-kit';
import type { RelayKit } from './relay-kit';

const discovery = (id: string) => ({ id, command: { discovery: {} } });

describe('POST /api/v2/management/control_plane/exec', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ maxPendingPerEdge: 3 });
  });
  afterAll(() => kit.stop());

  it.each(['discovery', 'sync_edge_directory'] as const)('sends %s and answers {"result":{}} after the edge confirms', async (name) => {
    const edge = await kit.edge(kit.a);
    const res = await kit.call(EXEC_PATH, { body: { id: edge.instanceId, command: { [name]: {} } } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ result: {} });
    // timeout_ms: how long exec waits (the kit's RELAY_EXEC_TIMEOUT_MS), which the edge may spend on retries.
    expect(edge.commands).toEqual([{ type: 'command', request_id: expect.any(String), command: name, timeout_ms: 10_000 }]);
    // The confirmed status is written to the registration.
    const listed = (await (await kit.call(INSTANCE_REGISTRATIONS_PATH)).json()) as { result: { id: string; info: { directory_revision: number } }[] };
    expect(listed.result.find((r) => r.id === edge.instanceId)?.info.directory_revision).toBe(7);
  });

  describe('400 / 413 for malformed requests, 401 before any of them', () => {
    it.each([
      ['not JSON', '{"id":', 'bad_request', 'the request body is not valid JSON'],
      ['a JSON array', [], 'bad_request', 'the body must be a JSON object'],
      ['no id', { command: { discovery: {} } }, 'bad_request', '"id" must be a non-empty string (the instance id)'],
      ['a numeric id', { id: 42, command: { discovery: {} } }, 'bad_request', '"id" must be a non-empty string (the instance id)'],
      ['an empty id', { id: '', command: { discovery: {} } }, 'bad_request', '"id" must be a non-empty string (the instance id)'],
      ['no command', { id: 'x' }, 'bad_request', '"command" must be an object with exactly one command member'],
      ['a string command', { id: 'x', command: 'discovery' }, 'bad_request', '"command" must be an object with exactly one command member'],
      ['zero command members', { id: 'x', command: {} }, 'bad_request', '"command" must have exactly one member (discovery or sync_edge_directory), found 0'],
      ['two command members', { id: 'x', command: { discovery: {}, sync_edge_directory: {} } }, 'bad_request', '"command" must have exactly one member (discovery or sync_edge_directory), found 2'],
      ['an unknown command', { id: 'x', command: { reboot: {} } }, 'unknown_command', 'unknown command "reboot"; expected discovery or sync_edge_directory'],
      ['a non-empty member', { id: 'x', command: { discovery: { force: true } } }, 'bad_request', '"command.discovery" must be an empty object {}'],
      ['a null member', { id: 'x', command: { discovery: null } }, 'bad_request', '"command.discovery" must be an empty object {}'],
    ])('answers 400 for %s', async (_label, body, code, message) => {
      const res = await kit.call(EXEC_PATH, { body });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code, message });
    });

    it('answers 400 for an empty body', async () => {
      const res = await kit.call(EXEC_PATH, { headers: { 'content-type': 'application/json' }, body: '' });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 'bad_request', message: '"id" must be a non-empty string (the instance id)' });
    });

    it('answers 400 for a non-JSON content type', async () => {
      const res = await kit.call(EXEC_PATH, { body: JSON.stringify(discovery('x')), headers: { 'content-type': 'text/plain' } });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 'bad_request', message: 'content-type must be application/json' });
    });

    it.each([6 * 1024, 64 * 1024])('answers 413 for a %i-byte body (the exec limit is 4 kB)', async (size) => {
      const res = await kit.call(EXEC_PATH, { body: { ...discovery('x'), padding: 'x'.repeat(size) } });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ code: 'payload_too_large', message: 'the request body is too large' });
    });

    it.each([
      ['a malformed body', '{"id":'],
      ['an oversized body', JSON.stringify({ padding: 'x'.repeat(64 * 1024) })],
    ])('answers 401, not a body error, to an unauthenticated caller with %s', async (_name, body) => {
      const res = await kit.call(EXEC_PATH, { body, headers: { authorization: '' } });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    });
  });

  it.each([
    ['no credentials', () => ({ authorization: '' })],
    ['a wrong key', () => ({ authorization: `basic ${kit.a.discoveryApiKey.slice(0, -1)}` })],
    ["tenant B's key with tenant A's id", () => ({ authorization: `basic ${kit.b.discoveryApiKey}` })],
    ['an unknown tenant id', () => ({ 'service-tenant-id': 'no-such-tenant' })],
  ])('answers 401 for %s and sends nothing', async (_label, headers) => {
    const edge = await kit.edge(kit.a);
    const res = await kit.call(EXEC_PATH, { body: discovery(edge.instanceId), headers: headers() });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="outpost"');
    expect(await res.json()).toEqual({ code: 'unauthorized', message: 'missing or invalid tenant credentials' });
    expect(edge.commands).toEqual([]);
  });

  it("answers the same 404 for an unknown instance and for another tenant's instance", async () => {
    const edgeA = await kit.edge(kit.a);
    const notFound = { code: 'instance_not_found', message: 'no instance with this id is registered for the tenant' };
    const unknown = await kit.call(EXEC_PATH, { tenant: kit.b, body: discovery('no-such-instance') });
    const foreign = await kit.call(EXEC_PATH, { tenant: kit.b, body: discovery(edgeA.instanceId) });
    expect([unknown.status, foreign.status]).toEqual([404, 404]);
    expect(await unknown.json()).toEqual(notFound);
    expect(await foreign.json()).toEqual(notFound);
    expect(edgeA.commands).toEqual([]);
  });

  it('answers 409 for a registered instance that is not connected', async () => {
    const edge = await kit.edge(kit.a);
    await edge.close();
    let res: Response;
    do res = await kit.call(EXEC_PATH, { body: discovery(edge.instanceId) });
    while (res.status === 200);
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ code: 'instance_not_connected', message: 'the instance is registered but not connected' });
  });

  it("answers 502 with the edge's message when the edge reports a failure", async () => {
    const edge = await kit.edge(kit.a, { behaviour: 'error' });
    const res = await kit.call(EXEC_PATH, { body: discovery(edge.instanceId) });
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({ code: 'edge_error', message: EDGE_ERROR_MESSAGE });
  });

  it("passes the edge's own code on only from the allow-list: an edge cannot choose exec's codes", async () => {
    const edge = await kit.edge(kit.a, { behaviour: 'error' });
    const codeFor = async (code: string) => {
      edge.errorCode = code;
      const res = await kit.call(EXEC_PATH, { body: discovery(edge.instanceId) });
      const body = (await res.json()) as { code: string; message: string };
      expect([res.status, body.message]).toEqual([502, EDGE_ERROR_MESSAGE]);
      return body.code;
    };
    for (const code of ['invalid_image', 'policy_tests_failed', 'sync_failed', 'no_image', 'resync_required']) expect(await codeFor(code)).toBe(code);
    for (const code of ['made_up', 'unauthorized', 'instance_not_found', 'INVALID_IMAGE', 'invalid_image ']) expect(await codeFor(code)).toBe('edge_error');
  });

  it('answers 409 promptly when the edge disconnects while the command is pending', async () => {
    const edge = await kit.edge(kit.a, { behaviour: 'close' });
    const res = await kit.call(EXEC_PATH, { body: discovery(edge.instanceId) });
    // Promptly: a relay that waited for its deadline would answer 504 edge_timeout instead.
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ code: 'instance_disconnected', message: 'the instance disconnected before confirming the command' });
  });

  it('handles concurrent execs to one edge by request id, and a silent edge blocks no other edge', async () => {
    const busy = await kit.edge(kit.a);
    const silent = await kit.edge(kit.a, { behaviour: 'never' });
    const other = await kit.edge(kit.b);
    const hanging = kit.call(EXEC_PATH, { body: discovery(silent.instanceId) });
    const answers = await Promise.all([
      kit.call(EXEC_PATH, { body: discovery(busy.instanceId) }),
      kit.call(EXEC_PATH, { body: { id: busy.instanceId, command: { sync_edge_directory: {} } } }),
      kit.call(EXEC_PATH, { body: discovery(busy.instanceId) }),
      kit.call(EXEC_PATH, { tenant: kit.b, body: discovery(other.instanceId) }),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(busy.commands.map((c) => c.request_id)).size).toBe(3);
    expect(busy.commands.map((c) => c.command).sort()).toEqual(['discovery', 'discovery', 'sync_edge_directory']);
    await silent.close();
    expect((await hanging).status).toBe(409);
  });

  it('bounds the commands waiting on one edge (429)', async () => {
    const silent = await kit.edge(kit.a, { behaviour: 'never' });
    const waiting = [1, 2, 3].map(() => kit.relay.exec(kit.a.tenantId, silent.instanceId, 'discovery').catch((err: unknown) => err));
    while (silent.commands.length < 3) await silent.next();
    const res = await kit.call(EXEC_PATH, { body: discovery(silent.instanceId) });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(await res.json()).toEqual({ code: 'too_many_pending', message: 'too many commands are waiting for this instance' });
    await silent.close();
    expect(await Promise.all(waiting)).toEqual([1, 2, 3].map(() => expect.objectContaining({ status: 409, code: 'instance_disconnected' })));
  });
});

describe('exec timeout', () => {
  let kit: RelayKit;
  beforeAll(async () => {
    kit = await startRelayKit({ execTimeoutMs: 150 });
  });
  afterAll(() => kit.stop());

  it('answers 504 when the edge never confirms', async () => {
    const edge = await kit.edge(kit.a, { behaviour: 'never' });
    const res = await kit.call(EXEC_PATH, { body: discovery(edge.instanceId) });
    expect(res.status).toBe(504);
    expect(await res.json()).toEqual({ code: 'edge_timeout', message: 'the edge did not confirm the command within 150 ms' });
    // A late answer is refused as unknown, not applied.
    edge.sendJson({ type: 'command_result', request_id: edge.commands[0]?.request_id, ok: true, status: { policy_name: 'rbac', policy_digest: null, directory_revision: 1 } });
    let reply = await edge.next();
    while (reply.type === 'command') reply = await edge.next();
    expect(reply).toEqual({ type: 'error', code: 'unknown_request', message: 'no command is waiting for this request id' });
  });
});
