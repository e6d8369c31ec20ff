import { createServer, type RequestListener, type Server } from 'node:http';
import { pino } from 'pino';
import { createDecisionRoutes, type Edge } from '../../src/sidecar';
import { type DecisionRoute, type EdgeRuntime } from '../../src/edge';
import { createDecisionListener } from '../../src/sidecar/decision-server';
import { baseUrl, close, HttpError } from '../../src/http';
import type { Logger } from '../../src/observability';
import { makeSyncedEdge, removeDir, tempDir } from './edge-kit';
import { startFakeControlPlane, userId, type FakeControlPlane } from './fake-control-plane';

// The sidecar's decision endpoints when deciding throws something no one planned for: a
// 503 for that request (fail closed), one log line per kind per minute, and a server that
// goes on answering.

const UNAVAILABLE = { code: 'authorizer_unavailable', message: 'the authorizer is unavailable; try again shortly' };
const NO_FAILURE = Symbol('no failure');
const SECRET = 'Bearer eyJhbGciOiJSUzI1NiJ9.must-not-leak';

let cp: FakeControlPlane;
let dir: string;
let edge: Edge;
let rick: string;
/** What the wrapped authorizer throws on its next decisions (or decides, with NO_FAILURE). */
let failure: unknown = NO_FAILURE;
/** A runtime deciding with the synced edge's state, through an authorizer that throws `failure`. */
let runtime: EdgeRuntime;
const servers: Server[] = [];

beforeAll(async () => {
  cp = await startFakeControlPlane();
  dir = tempDir();
  ({ edge } = await makeSyncedEdge(cp.url, dir));
  rick = userId(cp.directory, 'rick');
  const real = edge.authorizer;
  runtime = {
    ...edge,
    authorizer: {
      ...real,
      decideNow(request) {
        if (failure !== NO_FAILURE) throw failure;
        return real.decideNow(request);
      },
    },
  };
});

afterEach(() => {
  failure = NO_FAILURE;
});

afterAll(async () => {
  await Promise.all(servers.map((s) => close(s)));
  await edge.close();
  await cp.close();
  removeDir(dir);
});

/** A real pino logger writing into an array; while `broken`, every write throws. */
function capture(): { logger: Logger; lines: Record<string, unknown>[]; broken: boolean } {
  const sink = { logger: undefined as unknown as Logger, lines: [] as Record<string, unknown>[], broken: false };
  const write = (line: string) => {
    if (sink.broken) throw new Error('the log disk is full');
    sink.lines.push(JSON.parse(line) as Record<string, unknown>);
  };
  sink.logger = pino({ level: 'info' }, { write });
  return sink;
}

const notFound: RequestListener = (_req, res) => {
  res.writeHead(404).end();
};

/** The sidecar's listener over `routes` on 127.0.0.1:0, its failure log on a clock the test steps. */
async function serve(routes: DecisionRoute[], logger: Logger, clock = { now: 0 }): Promise<string> {
  const server = createServer(createDecisionListener(routes, notFound, logger, { now: () => clock.now }));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return baseUrl(server);
}

const edgeRoutes = (logger: Logger) => createDecisionRoutes({ runtime, verifyJwt: async () => rick, logger });
const post = (url: string, body: unknown) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const evaluation = { subject: { type: 'user', id: 'rick@the-citadel.com' }, action: { name: 'DELETE' }, resource: { type: 'Resource', id: 'mega-seed' } };
const isRequest = {
  identity_context: { type: 'IDENTITY_TYPE_JWT', identity: SECRET },
  policy_context: { path: 'rbac.DELETE', decisions: ['allowed'] },
  resource_context: { type: 'Resource', id: 'mega-seed' },
};

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('1');
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(await res.json()).toEqual(UNAVAILABLE);
}

describe('a decision that throws', () => {
  it('answers 503 authorizer_unavailable with Retry-After on every decision endpoint, then decides the next request', async () => {
    const { logger } = capture();
    const url = await serve(edgeRoutes(logger), logger);
    failure = new TypeError("Cannot read properties of undefined (reading 'allowed')");
    await expectUnavailable(await post(`${url}/access/v1/evaluation`, evaluation));
    await expectUnavailable(await post(`${url}/access/v1/evaluations`, { evaluations: [evaluation, evaluation] }));
    failure = 'a string, not an Error';
    await expectUnavailable(await post(`${url}/api/v2/authz/is`, isRequest));
    failure = undefined;
    await expectUnavailable(await post(`${url}/access/v1/evaluation`, evaluation));

    failure = NO_FAILURE;
    const ok = await post(`${url}/access/v1/evaluation`, evaluation);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ decision: true });
  });

  it('leaves client errors their status while deciding throws', async () => {
    const { logger } = capture();
    const url = await serve(edgeRoutes(logger), logger);
    failure = new TypeError('boom');
    const malformed = await post(`${url}/access/v1/evaluation`, '{"subject":');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('retry-after')).toBeNull();
    expect(await malformed.json()).toEqual({ code: 'bad_request', message: 'the request body is not valid JSON' });
  });

  it('logs one error line per kind per minute, then says how many it suppressed; never the stack or a token in a body', async () => {
    const { logger, lines } = capture();
    const clock = { now: 1_000_000 };
    const url = await serve(edgeRoutes(logger), logger, clock);
    failure = new TypeError('the detail only the log may read');
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await post(`${url}/access/v1/evaluation`, evaluation);
      ids.push(res.headers.get('x-request-id')!);
      expect(await res.text()).not.toContain('only the log');
      clock.now += 10_000;
    }
    const errors = () => lines.filter((l) => (l.level as number) >= 50);
    expect(errors()).toEqual([
      expect.objectContaining({
        msg: 'decision failed',
        req_id: ids[0],
        kind: '/access/v1/evaluation TypeError',
        suppressed: 0,
        err: expect.objectContaining({ type: 'TypeError', message: 'the detail only the log may read', stack: expect.stringContaining('TypeError') }),
      }),
    ]);
    // Another route is another kind.
    await post(`${url}/api/v2/authz/is`, isRequest);
    expect(errors().map((l) => l.kind)).toEqual(['/access/v1/evaluation TypeError', '/api/v2/authz/is TypeError']);

    clock.now += 61_000;
    const later = await post(`${url}/access/v1/evaluation`, evaluation);
    expect(later.status).toBe(503);
    expect(errors().at(-1)).toMatchObject({ req_id: later.headers.get('x-request-id'), kind: '/access/v1/evaluation TypeError', suppressed: 4 });
    expect(JSON.stringify(lines)).not.toContain('must-not-leak');
  });
});

describe('an answer that cannot be given', () => {
  const route = (path: string, handle: DecisionRoute['handle']): DecisionRoute => ({ path, limitBytes: 1024, handle });

  it('answers 503 when a reply carries a header value Node refuses to send', async () => {
    const { logger, lines } = capture();
    const url = await serve([route('/bad-reply', async () => ({ headers: { 'x-state': 'a\r\nb' }, body: { ok: true } }))], logger);
    await expectUnavailable(await post(`${url}/bad-reply`, {}));
    expect(lines).toContainEqual(expect.objectContaining({ kind: '/bad-reply TypeError', err: expect.objectContaining({ code: 'ERR_INVALID_CHAR' }) }));
  });

  it('answers 503 when even the error answer cannot be sent, and goes on serving', async () => {
    const { logger } = capture();
    const broken = new HttpError(409, 'conflict', 'a refusal with a broken header', { 'x-why': 'a\r\nb' });
    const url = await serve(
      [
        route('/broken-refusal', async () => {
          throw broken;
        }),
        route('/fine', async () => ({ headers: {}, body: { ok: true } })),
      ],
      logger,
    );
    await expectUnavailable(await post(`${url}/broken-refusal`, {}));
    const fine = await post(`${url}/fine`, {});
    expect(fine.status).toBe(200);
  });

  it('answers 503 when the logger throws, and goes on serving', async () => {
    const sink = capture();
    const url = await serve(edgeRoutes(sink.logger), sink.logger);
    sink.broken = true;
    failure = new TypeError('boom');
    await expectUnavailable(await post(`${url}/access/v1/evaluation`, evaluation));
    failure = NO_FAILURE;
    // A broken log is our failure too: the decision's own log line throws, so this is a 503 as well.
    await expectUnavailable(await post(`${url}/access/v1/evaluation`, evaluation));
    sink.broken = false;
    const ok = await post(`${url}/access/v1/evaluation`, evaluation);
    expect(ok.status).toBe(200);
  });
});
