/**
 * The differential test of the opt-in bare exec (RELAY_BARE_EXEC=on, src/fast-path): one
 * relay and one store behind two listeners, the default app (exec and broadcast as Express
 * routes alone) and the app with the bare path in front. Every input — valid, malformed,
 * oversized, refused, failing, and the unusual forms the bare path leaves to Express — is sent
 * to both, and the answers must be identical: status, every header (but `date`), body, and the
 * log lines written under the request's id. A counter in front of the second app's Express
 * routers shows which requests the bare path answered itself, so the test cannot pass by
 * both servers being Express.
 */
import http from 'node:http';
import type { Server } from 'node:http';
import express from 'express';
import { createControlPlaneApp } from '../../src/control-plane';
import { signedImagePushCheck } from '../../src/signing-keys';
import { baseUrl, close, listen } from '../../src/http';
import { EXEC_PATH } from '../../src/relay';
import { BROADCAST_PATH } from '../../src/relay-protocol';
import { capturingLogger, type LogLine } from '../helpers/capturing-logger';
import { waitUntil } from '../helpers/redis';
import { startRelayKit, type RelayKit, type TestTenant } from '../relay/relay-kit';

type Pair = [string, string];

interface Input {
  readonly method?: string;
  readonly path?: string;
  readonly headers: Record<string, string>;
  /** Sent with a `content-length`, unless `chunked`. */
  readonly body?: string;
  /** Sent in chunks of 2 KiB, `transfer-encoding: chunked`. */
  readonly chunked?: boolean;
}

interface Answer {
  readonly status: number;
  readonly headers: Pair[];
  readonly body: string;
  readonly log: LogLine[];
}

const LOG_NOISE = new Set(['time', 'pid', 'hostname', 'ms', 'req_id']);

const command = (id: string, name = 'discovery') => JSON.stringify({ id, command: { [name]: {} } });
/** An exec body of exactly `size` bytes for instance `id`. */
function sized(id: string, size: number): string {
  const empty = JSON.stringify({ id, command: { discovery: {} }, padding: '' });
  return JSON.stringify({ id, command: { discovery: {} }, padding: 'x'.repeat(size - empty.length) });
}

describe('the opt-in bare exec answers exactly as the default Express routes', () => {
  const { logger, lines } = capturingLogger();
  let kit: RelayKit;
  let bareExec: Server;
  let bareExecUrl: string;
  /** Requests that reached the Express routers behind the bare path. */
  let reachedExpress = 0;
  let sequence = 0;

  beforeAll(async () => {
    kit = await startRelayKit({ logger, execTimeoutMs: 1_000 });
    await kit.edge(kit.a, { instanceId: 'edge-ok' });
    await kit.edge(kit.a, { instanceId: 'edge-failing', behaviour: 'error' });
    await kit.edge(kit.a, { instanceId: 'edge-silent', behaviour: 'never' });
    await (await kit.edge(kit.a, { instanceId: 'edge-gone' })).close();
    await kit.edge(kit.b, { instanceId: 'edge-b' });
    const counter = express.Router().use((_req, _res, next) => {
      reachedExpress += 1;
      next();
    });
    bareExec = await listen(createControlPlaneApp({ pushCheck: signedImagePushCheck(), store: kit.store, logger, routers: [counter, kit.relay.managementRouter], bareExec: kit.relay }), 0, '127.0.0.1');
    bareExecUrl = baseUrl(bareExec);
    // The relay stores the disconnect once it sees the close: exec then answers 409.
    await waitUntil('exec answers 409 for edge-gone', async () => (await send(kit.url, { headers: headersOf(kit.a), body: command('edge-gone') }, 'warm-up')).status === 409);
  });
  afterAll(async () => {
    bareExec.closeAllConnections();
    await close(bareExec);
    await kit.stop();
  });

  function headersOf(tenant: TestTenant, extra: Record<string, string> = {}): Record<string, string> {
    return { 'content-type': 'application/json', 'service-tenant-id': tenant.tenantId, authorization: `basic ${tenant.discoveryApiKey}`, ...extra };
  }

  /** One request over a fresh connection, with the answer's raw headers and its log lines. */
  function send(url: string, input: Input, requestId: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { 'x-request-id': requestId, ...input.headers };
      if (input.body !== undefined && !input.chunked) headers['content-length'] = String(Buffer.byteLength(input.body));
      const req = http.request(`${url}${input.path ?? EXEC_PATH}`, { method: input.method ?? 'POST', agent: false, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const pairs: Pair[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i]!.toLowerCase();
            const value = res.rawHeaders[i + 1]!;
            // Each request has its own id; what must match is that the caller's is echoed.
            if (name !== 'date') pairs.push([name, name === 'x-request-id' && value === requestId ? "(the caller's id)" : value]);
          }
          // The request line is written as the answer finishes; the client may see the answer first.
          setImmediate(() => {
            const log = lines
              .filter((l) => l.req_id === requestId)
              .map((l) => {
                const kept = Object.fromEntries(Object.entries(l).filter(([name]) => !LOG_NOISE.has(name)));
                if (typeof kept.err === 'object' && kept.err !== null) kept.err = { ...kept.err, stack: undefined };
                return kept;
              });
            resolve({ status: res.statusCode ?? 0, headers: pairs.sort(), body: Buffer.concat(chunks).toString('utf8'), log });
          });
        });
      });
      // The server may answer (413) and close before reading all of a body.
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err)));
      if (input.chunked && input.body !== undefined) {
        const body = Buffer.from(input.body);
        for (let at = 0; at < body.length; at += 2048) req.write(body.subarray(at, at + 2048));
      } else if (input.body !== undefined) req.write(input.body);
      req.end();
    });
  }

  /** `input` to the default app, then to the bare exec; both answers, and whether the bare path answered it itself. */
  async function both(input: Input, prepare?: () => void): Promise<{ viaExpress: Answer; viaBare: Answer; taken: boolean }> {
    sequence += 1;
    prepare?.();
    const viaExpress = await send(kit.url, input, `express-${sequence}`);
    prepare?.();
    const before = reachedExpress;
    const viaBare = await send(bareExecUrl, input, `bare-${sequence}`);
    return { viaExpress, viaBare, taken: reachedExpress === before };
  }

  const exec = (body: string, extra: Record<string, string> = {}): Input => ({ headers: headersOf(kit.a, extra), body });

  it.each<[string, () => Input, number, boolean]>([
    ['discovery', () => exec(command('edge-ok')), 200, true],
    ['sync_edge_directory', () => exec(command('edge-ok', 'sync_edge_directory')), 200, true],
    ['a body of exactly 4 kB', () => exec(sized('edge-ok', 4 * 1024)), 200, true],
    ['a body led by whitespace', () => exec(`\n\t ${command('edge-ok')}`), 200, true],
    ['a body led by a byte-order mark', () => exec(`\uFEFF${command('edge-ok')}`), 200, true],
    ['an unknown top-level member', () => exec(JSON.stringify({ id: 'edge-ok', command: { discovery: {} }, note: 1 })), 200, true],
    ['the UTF-8 charset named', () => exec(command('edge-ok'), { 'content-type': 'application/json; charset=utf-8' }), 200, true],
    ['the type in capitals', () => exec(command('edge-ok'), { 'content-type': 'Application/JSON' }), 200, true],
    ['keep-alive asked for', () => exec(command('edge-ok'), { connection: 'keep-alive' }), 200, true],
    ['no credentials', () => ({ headers: { 'content-type': 'application/json' }, body: command('edge-ok') }), 401, true],
    ['a wrong key', () => exec(command('edge-ok'), { authorization: 'basic nope' }), 401, true],
    ["tenant B's key with tenant A's id", () => exec(command('edge-ok'), { authorization: `basic ${kit.b.discoveryApiKey}` }), 401, true],
    ['a wrong key with a malformed body', () => exec('{"id":', { authorization: 'basic nope' }), 401, true],
    ['a wrong key with an oversized body', () => exec(sized('edge-ok', 6 * 1024), { authorization: 'basic nope' }), 401, false],
    ['malformed JSON', () => exec('{"id":'), 400, true],
    ['a JSON number', () => exec('42'), 400, true],
    ['a JSON string', () => exec('"edge-ok"'), 400, true],
    ['a body of whitespace and a scalar', () => exec(' \n1'), 400, true],
    ['a JSON array', () => exec('[]'), 400, true],
    ['an empty body', () => exec(''), 400, true],
    ['a numeric id', () => exec(JSON.stringify({ id: 1, command: { discovery: {} } })), 400, true],
    ['two commands', () => exec(JSON.stringify({ id: 'edge-ok', command: { discovery: {}, sync_edge_directory: {} } })), 400, true],
    ['an unknown command', () => exec(command('edge-ok', 'reboot')), 400, true],
    ['a body one byte over 4 kB', () => exec(sized('edge-ok', 4 * 1024 + 1)), 413, false],
    ['an oversized chunked body', () => ({ headers: headersOf(kit.a), body: sized('edge-ok', 8 * 1024), chunked: true }), 413, false],
    ['a small chunked body', () => ({ headers: headersOf(kit.a), body: command('edge-ok'), chunked: true }), 200, false],
    ['a compressed body', () => exec(command('edge-ok'), { 'content-encoding': 'gzip' }), 415, false],
    ['another charset', () => exec(command('edge-ok'), { 'content-type': 'application/json; charset=latin1' }), 415, false],
    ['another JSON type', () => exec(command('edge-ok'), { 'content-type': 'application/vnd.api+json' }), 400, false],
    ['text/plain', () => exec(command('edge-ok'), { 'content-type': 'text/plain' }), 400, false],
    ['an unknown instance', () => exec(command('no-such-edge')), 404, true],
    ["another tenant's instance", () => exec(command('edge-b')), 404, true],
    ['an edge registered but not connected', () => exec(command('edge-gone')), 409, true],
    ['an edge reporting a failure', () => exec(command('edge-failing')), 502, true],
    ['an edge that never confirms', () => exec(command('edge-silent')), 504, true],
    ['a trailing slash (Express routes it)', () => ({ ...exec(command('edge-ok')), path: `${EXEC_PATH}/` }), 200, false],
    ['a query string', () => ({ ...exec(command('edge-ok')), path: `${EXEC_PATH}?x=1` }), 200, false],
    ['GET', () => ({ method: 'GET', path: EXEC_PATH, headers: headersOf(kit.a) }), 404, false],
    ['a broadcast', () => ({ path: BROADCAST_PATH, headers: headersOf(kit.b), body: JSON.stringify({ command: { discovery: {} } }) }), 200, true],
    ['a malformed broadcast', () => ({ path: BROADCAST_PATH, headers: headersOf(kit.b), body: '{"command":' }), 400, true],
    ['a broadcast of an unknown command', () => ({ path: BROADCAST_PATH, headers: headersOf(kit.b), body: JSON.stringify({ command: { reboot: {} } }) }), 400, true],
  ])('%s: the same answer and log both ways', async (_name, input, status, taken) => {
    const got = await both(input());
    expect(got.viaBare).toEqual(got.viaExpress);
    expect(got.viaExpress.status).toBe(status);
    expect(got.taken).toBe(taken);
  });

  it.each([
    ['503 for a busy database', { code: 'SQLITE_BUSY' }, 503],
    ['507 for a full disk', { code: 'SQLITE_FULL' }, 507],
  ])('%s while checking the key: the same answer and log both ways', async (_name, fields, status) => {
    const spy = jest.spyOn(kit.store, 'verifyTenantKey');
    const got = await both(exec(command('edge-ok')), () => spy.mockRejectedValueOnce(Object.assign(new Error('storage says no'), fields)));
    spy.mockRestore();
    expect(got.viaBare).toEqual(got.viaExpress);
    expect(got.viaExpress.status).toBe(status);
    expect(got.taken).toBe(true);
  });

  it('a 500 for an unexpected failure, its detail only in the log, both ways', async () => {
    const spy = jest.spyOn(kit.store, 'verifyTenantKey');
    const got = await both(exec(command('edge-ok')), () => spy.mockRejectedValueOnce(new TypeError('surprise')));
    spy.mockRestore();
    expect(got.viaBare).toEqual(got.viaExpress);
    expect(got.viaExpress.status).toBe(500);
    expect(got.viaExpress.log).toContainEqual(expect.objectContaining({ msg: 'unhandled error' }));
    expect(got.taken).toBe(true);
  });
});
