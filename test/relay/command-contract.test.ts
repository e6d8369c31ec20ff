/**
 * The full answer of exec and broadcast (docs/reference/api.md, "Relay management API" and
 * "Broadcast") for every kind of request, pinned as it was while both were served by Express:
 * status, every header name and value, body, and the log lines written under the request's id.
 * Only what differs per request is left out: `date`, the `x-request-id` value (the caller's own
 * is echoed; a fresh one is checked for its shape) and the log's clock, pid, host and duration.
 * Requests go over raw connections, so a duplicate header or a changed framing shows.
 */
import http from 'node:http';
import { EXEC_PATH } from '../../src/relay';
import { BROADCAST_PATH } from '../../src/relay-protocol';
import { capturingLogger, type LogLine } from '../helpers/capturing-logger';
import { waitUntil } from '../helpers/redis';
import { EDGE_ERROR_MESSAGE, type FakeEdge } from './fake-edge';
import { startRelayKit, type RelayKit, type TestTenant } from './relay-kit';
import { SECURITY_HEADERS } from '../helpers/pinned-security-headers';

/** Fields of a log line that differ per run. */
const LOG_NOISE = new Set(['time', 'pid', 'hostname', 'ms']);

type Pair = [string, string];
const byName = (a: Pair, b: Pair) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : 1) : a[0] < b[0] ? -1 : 1);

interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  readonly headers: Record<string, string>;
  /** Sent with a `content-length`, unless `chunked`. */
  readonly body?: string | Buffer;
  /** Sent in chunks of 2 KiB without a `content-length` (`transfer-encoding: chunked`). */
  readonly chunked?: boolean;
}

interface RawAnswer {
  readonly status: number;
  /** `[lower-case name, value]`, sorted, `date` and `x-request-id` left out. */
  readonly headers: Pair[];
  readonly requestId: string | undefined;
  readonly body: string;
}

/** One request over a fresh connection (`connection: close`), answered with its raw header lines. */
function send(url: string, request: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers };
    if (request.body !== undefined && !request.chunked) headers['content-length'] = String(Buffer.byteLength(request.body));
    const req = http.request(`${url}${request.path ?? EXEC_PATH}`, { method: request.method ?? 'POST', agent: false, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const pairs: Pair[] = [];
        let requestId: string | undefined;
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          const name = res.rawHeaders[i]!.toLowerCase();
          const value = res.rawHeaders[i + 1]!;
          if (name === 'x-request-id') requestId = value;
          else if (name !== 'date') pairs.push([name, value]);
        }
        resolve({ status: res.statusCode ?? 0, headers: pairs.sort(byName), requestId, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    // The server may answer (413) and close before reading all of a body.
    req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
    if (request.chunked && request.body !== undefined) {
      const body = Buffer.from(request.body);
      for (let at = 0; at < body.length; at += 2048) req.write(body.subarray(at, at + 2048));
    } else if (request.body !== undefined) req.write(request.body);
    req.end();
  });
}

/** The headers an answer carries: the security headers, its JSON body's type and length, `connection: close`, then `extra`. */
function expectedHeaders(body: string, extra: Record<string, string>): Pair[] {
  const all: Record<string, string> = {
    ...SECURITY_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
    ...extra,
  };
  return Object.entries(all).sort(byName);
}

const NO_STORE = { 'cache-control': 'no-store' };
const CHALLENGE = { 'www-authenticate': 'Basic realm="outpost"' };
const UNAUTHORIZED = '{"code":"unauthorized","message":"missing or invalid tenant credentials"}';
const NOT_JSON = '{"code":"bad_request","message":"the request body is not valid JSON"}';
const TOO_LARGE = '{"code":"payload_too_large","message":"the request body is too large"}';
const NOT_FOUND = '{"code":"instance_not_found","message":"no instance with this id is registered for the tenant"}';
const WRONG_TYPE = '{"code":"bad_request","message":"content-type must be application/json"}';
const ENCODING = '{"code":"unsupported_media_type","message":"unsupported body encoding"}';
const NO_ID = '{"code":"bad_request","message":"\\"id\\" must be a non-empty string (the instance id)"}';

const command = (id: string, name = 'discovery') => JSON.stringify({ id, command: { [name]: {} } });
/** An exec body of exactly `size` bytes for instance `id`. */
function sized(id: string, size: number): string {
  const empty = JSON.stringify({ id, command: { discovery: {} }, padding: '' });
  return JSON.stringify({ id, command: { discovery: {} }, padding: 'x'.repeat(size - empty.length) });
}

describe('exec and broadcast answers, pinned whole', () => {
  const { logger, lines } = capturingLogger();
  let kit: RelayKit;
  const edges: Record<string, FakeEdge> = {};
  let sequence = 0;

  beforeAll(async () => {
    kit = await startRelayKit({ logger, execTimeoutMs: 1_000, maxPendingPerEdge: 1 });
    edges.ok = await kit.edge(kit.a, { instanceId: 'edge-ok' });
    edges.failing = await kit.edge(kit.a, { instanceId: 'edge-failing', behaviour: 'error' });
    edges.refusing = await kit.edge(kit.a, { instanceId: 'edge-refusing', behaviour: 'error', errorCode: 'invalid_image' });
    edges.silent = await kit.edge(kit.a, { instanceId: 'edge-silent', behaviour: 'never' });
    edges.closing = await kit.edge(kit.a, { instanceId: 'edge-closing', behaviour: 'close' });
    edges.gone = await kit.edge(kit.a, { instanceId: 'edge-gone' });
    edges.b = await kit.edge(kit.b, { instanceId: 'edge-b' });
    await edges.gone.close();
    // The relay stores the disconnect once it sees the close: exec then answers 409.
    await waitUntil('exec answers 409 for edge-gone', async () => (await send(kit.url, { headers: headersOf(kit.a, 'contract-warmup'), body: command('edge-gone') })).status === 409);
  });
  afterAll(() => kit.stop());

  function headersOf(tenant: TestTenant, requestId: string, extra: Record<string, string> = {}): Record<string, string> {
    return { 'content-type': 'application/json', 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}`, 'x-request-id': requestId, ...extra };
  }

  /** The log lines written under `requestId`, without what differs per run. */
  function logOf(requestId: string): LogLine[] {
    return lines
      .filter((l) => l.req_id === requestId)
      .map((l) => Object.fromEntries(Object.entries(l).filter(([name]) => !LOG_NOISE.has(name))));
  }

  const requestLine = (id: string, method: string, path: string, status: number) => ({ level: 30, msg: 'request', req_id: id, method, path, status });

  interface Case {
    readonly status: number;
    readonly body: string;
    readonly headers?: Record<string, string>;
    /** Log lines before the request line. */
    readonly log?: (id: string) => LogLine[];
  }

  /** Sends `request` (with a fresh caller-chosen request id) and checks the whole answer and its log. */
  async function expectAnswer(build: (id: string) => RawRequest, expected: Case): Promise<void> {
    sequence += 1;
    const id = `contract-${sequence}`;
    const request = build(id);
    const got = await send(kit.url, request);
    expect({ status: got.status, body: got.body }).toEqual({ status: expected.status, body: expected.body });
    expect(got.headers).toEqual(expectedHeaders(expected.body, expected.headers ?? {}));
    expect(got.requestId).toBe(id);
    // The request line is written as the answer finishes; the client may see the answer first.
    await new Promise((resolve) => setImmediate(resolve));
    const path = (request.path ?? EXEC_PATH).split('?')[0]!;
    expect(logOf(id)).toEqual([...(expected.log?.(id) ?? []), requestLine(id, request.method ?? 'POST', path, expected.status)]);
  }

  const a = () => kit.a;
  const exec = (body: string | Buffer, extra: Record<string, string> = {}) => (id: string): RawRequest => ({ headers: headersOf(a(), id, extra), body });

  describe('exec', () => {
    it.each([
      ['discovery', command('edge-ok')],
      ['sync_edge_directory', command('edge-ok', 'sync_edge_directory')],
      ['a body of exactly 4 kB', sized('edge-ok', 4 * 1024)],
      ['a body led by whitespace', `\n\t ${command('edge-ok')}`],
      ['a body led by a byte-order mark', `\uFEFF${command('edge-ok')}`],
      ['an unknown top-level member', JSON.stringify({ id: 'edge-ok', command: { discovery: {} }, note: 1 })],
    ])('200 for %s', async (_name, body) => {
      await expectAnswer(exec(body), { status: 200, body: '{"result":{}}', headers: NO_STORE });
    });

    it.each([
      ['application/json; charset=utf-8'],
      ['application/json; charset=UTF-8'],
      ['Application/JSON'],
      ['application/json;charset=utf-8'],
    ])('200 with content-type %s', async (type) => {
      await expectAnswer(exec(command('edge-ok'), { 'content-type': type }), { status: 200, body: '{"result":{}}', headers: NO_STORE });
    });

    it('200 with the RFC 7617 credential base64(tenant:key)', async () => {
      const credential = Buffer.from(`${kit.a.tenantId}:${kit.a.discoveryApiKey}`).toString('base64');
      await expectAnswer(exec(command('edge-ok'), { authorization: `Basic ${credential}` }), { status: 200, body: '{"result":{}}', headers: NO_STORE });
    });

    it.each([
      ['no credentials at all', (id: string) => ({ 'content-type': 'application/json', 'x-request-id': id })],
      ['no authorization', (id: string) => ({ ...headersOf(kit.a, id), authorization: '' })],
      ['no tenant id', (id: string) => ({ ...headersOf(kit.a, id), 'service-tenant-id': '' })],
      ['a wrong key', (id: string) => headersOf(kit.a, id, { authorization: `basic ${kit.a.discoveryApiKey.slice(0, -1)}x` })],
      ['the admin key', (id: string) => headersOf(kit.a, id, { authorization: `basic ${kit.a.adminApiKey}` })],
      ["tenant B's key with tenant A's id", (id: string) => headersOf(kit.a, id, { authorization: `basic ${kit.b.discoveryApiKey}` })],
      ['an unknown tenant id', (id: string) => headersOf(kit.a, id, { 'service-tenant-id': 'no-such-tenant' })],
      ['a bearer token', (id: string) => headersOf(kit.a, id, { authorization: `Bearer ${kit.a.discoveryApiKey}` })],
    ])('401 for %s', async (_name, headers) => {
      await expectAnswer((id) => ({ headers: headers(id), body: command('edge-ok') }), { status: 401, body: UNAUTHORIZED, headers: CHALLENGE });
    });

    it.each([
      ['a malformed body', '{"id":', {}],
      ['an oversized body', sized('edge-ok', 6 * 1024), {}],
      ['a wrong content type', command('edge-ok'), { 'content-type': 'text/plain' }],
      ['a compressed body', command('edge-ok'), { 'content-encoding': 'gzip' }],
    ])('401, not a body error, for a wrong key with %s', async (_name, body, extra) => {
      await expectAnswer((id) => ({ headers: headersOf(kit.a, id, { authorization: 'basic nope', ...extra }), body }), { status: 401, body: UNAUTHORIZED, headers: CHALLENGE });
    });

    it('401 for a wrong key with an oversized chunked body', async () => {
      await expectAnswer((id) => ({ headers: headersOf(kit.a, id, { authorization: 'basic nope' }), body: sized('edge-ok', 8 * 1024), chunked: true }), {
        status: 401,
        body: UNAUTHORIZED,
        headers: CHALLENGE,
      });
    });

    it.each([
      ['not JSON', '{"id":', NOT_JSON],
      ['a JSON number (body-parser is strict: an object or an array)', '42', NOT_JSON],
      ['a JSON string', '"edge-ok"', NOT_JSON],
      ['a JSON array', '[]', '{"code":"bad_request","message":"the body must be a JSON object"}'],
      ['an empty body', '', NO_ID],
      ['an empty object', '{}', NO_ID],
      ['a numeric id', JSON.stringify({ id: 1, command: { discovery: {} } }), NO_ID],
      ['no command', JSON.stringify({ id: 'edge-ok' }), '{"code":"bad_request","message":"\\"command\\" must be an object with exactly one command member"}'],
      ['two commands', JSON.stringify({ id: 'edge-ok', command: { discovery: {}, sync_edge_directory: {} } }), '{"code":"bad_request","message":"\\"command\\" must have exactly one member (discovery or sync_edge_directory), found 2"}'],
      ['a non-empty command value', JSON.stringify({ id: 'edge-ok', command: { discovery: { force: true } } }), '{"code":"bad_request","message":"\\"command.discovery\\" must be an empty object {}"}'],
      ['an unknown command', command('edge-ok', 'reboot'), '{"code":"unknown_command","message":"unknown command \\"reboot\\"; expected discovery or sync_edge_directory"}'],
    ])('400 for %s', async (_name, body, answer) => {
      await expectAnswer(exec(body), { status: 400, body: answer });
    });

    it.each([
      ['text/plain', WRONG_TYPE, 400],
      ['application/vnd.api+json', WRONG_TYPE, 400],
      ['application/x-www-form-urlencoded', WRONG_TYPE, 400],
      ['application/json; charset=latin1', ENCODING, 415],
    ])('for content-type %s', async (type, answer, status) => {
      await expectAnswer(exec(command('edge-ok'), { 'content-type': type }), { status, body: answer });
    });

    it('400 for a body without a content type', async () => {
      await expectAnswer((id) => {
        const { 'content-type': _type, ...headers } = headersOf(kit.a, id);
        return { headers, body: command('edge-ok') };
      }, { status: 400, body: WRONG_TYPE });
    });

    it.each(['gzip', 'identity'])('for content-encoding %s', async (encoding) => {
      const status = encoding === 'identity' ? 200 : 415;
      await expectAnswer(exec(command('edge-ok'), { 'content-encoding': encoding }), status === 200 ? { status, body: '{"result":{}}', headers: NO_STORE } : { status, body: ENCODING });
    });

    it.each([4 * 1024 + 1, 6 * 1024])('413 for a %i-byte body declared by content-length, the connection closed', async (size) => {
      await expectAnswer(exec(sized('edge-ok', size)), { status: 413, body: TOO_LARGE });
    });

    it('413 for an oversized chunked body', async () => {
      await expectAnswer((id) => ({ headers: headersOf(kit.a, id), body: sized('edge-ok', 8 * 1024), chunked: true }), { status: 413, body: TOO_LARGE });
    });

    it.each([
      ['an unknown instance', 'no-such-edge'],
      ["another tenant's instance", 'edge-b'],
    ])('404 for %s', async (_name, instance) => {
      await expectAnswer(exec(command(instance)), { status: 404, body: NOT_FOUND });
    });

    it('409 for an edge that is registered but not connected', async () => {
      await expectAnswer(exec(command('edge-gone')), { status: 409, body: '{"code":"instance_not_connected","message":"the instance is registered but not connected"}' });
    });

    it.each([
      ['a failure code exec does not pass on', 'edge-failing', 'edge_error'],
      ['a listed failure code', 'edge-refusing', 'invalid_image'],
    ])('502 for an edge reporting %s', async (_name, instance, code) => {
      const body = JSON.stringify({ code, message: EDGE_ERROR_MESSAGE });
      await expectAnswer(exec(command(instance)), {
        status: 502,
        body,
        log: (id) => [{ level: 40, msg: EDGE_ERROR_MESSAGE, req_id: id, code, kind: `${code} HttpError`, suppressed: 0 }],
      });
    });

    it('409 for an edge that disconnects while the command waits', async () => {
      await expectAnswer(exec(command('edge-closing')), { status: 409, body: '{"code":"instance_disconnected","message":"the instance disconnected before confirming the command"}' });
    });

    it('504 for an edge that never confirms, and 429 for a command beyond the pending limit meanwhile', async () => {
      const before = edges.silent!.commands.length;
      const waiting = expectAnswer(exec(command('edge-silent')), {
        status: 504,
        body: '{"code":"edge_timeout","message":"the edge did not confirm the command within 1000 ms"}',
        log: (id) => [{ level: 40, msg: 'the edge did not confirm the command within 1000 ms', req_id: id, code: 'edge_timeout', kind: 'edge_timeout HttpError', suppressed: 0 }],
      });
      // The first command is pending once the silent edge has it.
      await waitUntil('the first command reaches the silent edge', () => edges.silent!.commands.length > before);
      await expectAnswer(exec(command('edge-silent')), { status: 429, body: '{"code":"too_many_pending","message":"too many commands are waiting for this instance"}', headers: { 'retry-after': '1' } });
      await waiting;
    });

    it.each([
      ['503 for a busy database', { code: 'SQLITE_BUSY' }, 503, '{"code":"storage_unavailable","message":"storage is busy or unavailable; retry shortly"}', { 'retry-after': '1' }],
      ['507 for a full disk', { code: 'SQLITE_FULL' }, 507, '{"code":"insufficient_storage","message":"storage is full"}', {}],
    ])('%s while checking the key', async (_name, fields, status, body, headers) => {
      jest.spyOn(kit.store, 'verifyTenantKey').mockRejectedValueOnce(Object.assign(new Error('storage says no'), fields));
      await expectAnswer(exec(command('edge-ok')), {
        status,
        body,
        headers,
        log: (id) => [{ level: 50, msg: 'storage error', req_id: id, err_code: fields.code, kind: `${JSON.parse(body).code} ${fields.code}`, suppressed: 0 }],
      });
    });

    it('500 for an unexpected failure, its detail only in the log', async () => {
      jest.spyOn(kit.store, 'verifyTenantKey').mockRejectedValueOnce(new TypeError('surprise'));
      await expectAnswer(exec(command('edge-ok')), {
        status: 500,
        body: '{"code":"server_error","message":"internal error"}',
        log: (id) => [{ level: 50, msg: 'unhandled error', req_id: id, err: expect.objectContaining({ type: 'TypeError', message: 'surprise' }), kind: 'server_error TypeError', suppressed: 0 }],
      });
    });

    it('keep-alive for a caller that asks for it', async () => {
      await expectAnswer(exec(command('edge-ok'), { connection: 'keep-alive' }), {
        status: 200,
        body: '{"result":{}}',
        headers: { ...NO_STORE, connection: 'keep-alive', 'keep-alive': 'timeout=5' },
      });
    });

    it('a fresh request id when the caller’s is not a safe one', async () => {
      const got = await send(kit.url, { headers: headersOf(kit.a, 'not safe!'), body: command('edge-ok') });
      expect(got.status).toBe(200);
      expect(got.requestId).toMatch(/^[0-9a-f-]{36}$/);
    });

    it.each([
      ['a trailing slash', `${EXEC_PATH}/`],
      ['a query string', `${EXEC_PATH}?x=1`],
      ['upper case', EXEC_PATH.toUpperCase()],
    ])('the same 200 for the path with %s', async (_name, path) => {
      await expectAnswer((id) => ({ path, headers: headersOf(kit.a, id), body: command('edge-ok') }), { status: 200, body: '{"result":{}}', headers: NO_STORE });
    });

    it('404 for GET', async () => {
      await expectAnswer((id) => ({ method: 'GET', headers: headersOf(kit.a, id) }), { status: 404, body: `{"code":"not_found","message":"no route for GET ${EXEC_PATH}"}` });
    });
  });

  describe('broadcast', () => {
    const broadcast = (body: string, extra: Record<string, string> = {}) => (id: string): RawRequest => ({ path: BROADCAST_PATH, headers: headersOf(a(), id, extra), body });

    it('200 with the result', async () => {
      const body = JSON.stringify({ command: { discovery: {} }, filter: { policy_name: 'no-such-policy' } });
      await expectAnswer(broadcast(body), { status: 200, body: '{"result":{"sent":0,"confirmed":0,"failed":[],"not_connected":0}}', headers: NO_STORE });
    });

    it('401 for a wrong key', async () => {
      await expectAnswer(broadcast('{', { authorization: 'basic nope' }), { status: 401, body: UNAUTHORIZED, headers: CHALLENGE });
    });

    it.each([
      ['not JSON', '{', NOT_JSON],
      ['a bad filter', JSON.stringify({ command: { discovery: {} }, filter: { stale_only: 'yes' } }), '{"code":"bad_request","message":"\\"filter.stale_only\\" must be true or false"}'],
    ])('400 for %s', async (_name, body, answer) => {
      await expectAnswer(broadcast(body), { status: 400, body: answer });
    });

    it('400 for a wrong content type', async () => {
      await expectAnswer(broadcast(JSON.stringify({ command: { discovery: {} } }), { 'content-type': 'text/plain' }), { status: 400, body: WRONG_TYPE });
    });

    it('413 for an oversized body', async () => {
      await expectAnswer(broadcast(JSON.stringify({ command: { discovery: {} }, padding: 'x'.repeat(5000) })), { status: 413, body: TOO_LARGE });
    });
  });
});
