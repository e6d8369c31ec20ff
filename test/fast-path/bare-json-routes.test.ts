/**
 * A route served on bare node:http (serveBareJsonRoutes) answers exactly as its Express twin
 * behind createApp/finishApp: the same request sent to an Express-only server and to the bare
 * path in front of the same app gets the same status, headers (all but `date` and the request
 * id's value), body and log lines. And only plain JSON POSTs to the exact path are taken by
 * the bare path; everything else reaches the app.
 */
import http from 'node:http';
import type { Server } from 'node:http';
import { serveBareJsonRoutes, type BareJsonRoute } from '../../src/fast-path';
import { HttpError, baseUrl, close, createApp, createErrorResponder, finishAppWith, jsonBody, listen, type ErrorResponder, type ErrorTranslator } from '../../src/http';
import { capturingLogger, type LogLine } from '../helpers/capturing-logger';

const PATH = '/things';
const LIMIT = 64;

/** A storage failure as src/sql's translator sees one: recognised by its code. */
const translator: ErrorTranslator = {
  label: 'storage',
  translate: (err) => ((err as { code?: unknown }).code === 'BUSY' ? new HttpError(503, 'storage_unavailable', 'busy') : undefined),
};

/** The route's work, shared by both servers: what the body's `do` asks for. */
async function run(body: unknown): Promise<{ headers: Record<string, string>; body: unknown }> {
  const action = (body as { do?: unknown }).do;
  if (action === 'conflict') throw new HttpError(409, 'conflict', 'taken', { 'Retry-After': '3' });
  if (action === 'detail') throw new HttpError(400, 'bad_request', 'no', {}, 'for the log only');
  if (action === 'busy') throw Object.assign(new Error('locked'), { code: 'BUSY' });
  if (action === 'throw') throw new TypeError('surprise');
  return { headers: { 'Cache-Control': 'no-store' }, body: { ok: true, got: body } };
}

const requireKey = (headers: http.IncomingHttpHeaders) => {
  if (headers['x-key'] !== 'k') throw new HttpError(401, 'unauthorized', 'who?', { 'WWW-Authenticate': 'Basic realm="test"' });
};

type Pair = [string, string];
interface Answer {
  readonly status: number;
  readonly headers: Pair[];
  readonly body: string;
  readonly log: LogLine[];
}

describe('serveBareJsonRoutes', () => {
  const express = capturingLogger();
  const bare = capturingLogger();
  let expressUrl: string;
  let bareUrl: string;
  let bareCalls = 0;
  const servers: Server[] = [];

  /** The Express twin, with its own logger and error responder. */
  function twin(logger: typeof express.logger, answerError: ErrorResponder) {
    const app = createApp(logger);
    app.set('etag', false);
    app.post(PATH, (req, _res, next) => next(requireKey(req.headers) ?? undefined), jsonBody(LIMIT), async (req, res) => {
      const reply = await run(req.body);
      res.set(reply.headers).json(reply.body);
    });
    return finishAppWith(app, 'api', answerError);
  }

  beforeAll(async () => {
    const responder = (logger: typeof express.logger) => createErrorResponder(logger, 'api', { translators: [translator] });
    servers.push(await listen(twin(express.logger, responder(express.logger)), 0, '127.0.0.1'));
    const route: BareJsonRoute = {
      path: PATH,
      limitBytes: LIMIT,
      async handle(request) {
        bareCalls += 1;
        requireKey(request.headers);
        return run(await request.readJson());
      },
    };
    // One responder for the bare routes and the app behind them, as the control plane has.
    const answerError = responder(bare.logger);
    servers.push(await listen(serveBareJsonRoutes([route], twin(bare.logger, answerError), answerError, bare.logger), 0, '127.0.0.1'));
    [expressUrl, bareUrl] = servers.map(baseUrl) as [string, string];
  });
  afterAll(async () => {
    for (const server of servers) await close(server);
  });

  function send(url: string, lines: LogLine[], method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const req = http.request(`${url}${path}`, { method, agent: false, headers: { 'x-request-id': 'same-id', ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const pairs: Pair[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() !== 'date') pairs.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
          // The request line is written as the answer finishes.
          setImmediate(() => {
            // Without what differs per run, nor a stack (whose frames are the path's own).
            const log = lines.splice(0).map((l) => {
              const kept = Object.fromEntries(Object.entries(l).filter(([k]) => !['time', 'pid', 'hostname', 'ms'].includes(k)));
              if (typeof kept.err === 'object' && kept.err !== null) kept.err = { ...kept.err, stack: undefined };
              return kept;
            });
            resolve({ status: res.statusCode ?? 0, headers: pairs.sort(), body: Buffer.concat(chunks).toString('utf8'), log });
          });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const json = { 'content-type': 'application/json', 'x-key': 'k' };
  const lengthOf = (body: string) => ({ 'content-length': String(Buffer.byteLength(body)) });

  it.each([
    ['a 200', json, '{"do":"ok"}', true],
    ['a 200 for an empty body', json, '', true],
    ['a 200 with the UTF-8 charset named', { ...json, 'content-type': 'application/json; charset=utf-8' }, '{"do":"ok"}', true],
    ['a 200 for an array', json, '[1]', true],
    ['a 401 before the body', { ...json, 'x-key': 'no' }, '{"do":', true],
    ['a 409 with its Retry-After', json, '{"do":"conflict"}', true],
    ['a 400 with a log-only detail', json, '{"do":"detail"}', true],
    ['a 503 from the translator', json, '{"do":"busy"}', true],
    ['a 500', json, '{"do":"throw"}', true],
    ['a 500 of the same kind within the minute: not logged again', json, '{"do":"throw"}', true],
    ['a 400 for malformed JSON', json, '{"do":', true],
    ['a 400 for a JSON scalar', json, '"ok"', true],
    ['a 400 for a body led by whitespace and a scalar', json, ' \n1', true],
    ['the body at its limit', json, JSON.stringify({ do: 'ok', pad: 'x'.repeat(LIMIT - 20) }), true],
    ['a 413 over the limit', json, JSON.stringify({ do: 'ok', pad: 'x'.repeat(LIMIT) }), false],
    // Not parsed by the twin either: its body is undefined, a 500 of the kind above, left unlogged both ways.
    ['another JSON type', { ...json, 'content-type': 'application/merge-patch+json' }, '{"do":"ok"}', false],
    ['another charset', { ...json, 'content-type': 'application/json; charset=utf-16' }, '{"do":"ok"}', false],
    ['a compressed body', { ...json, 'content-encoding': 'gzip' }, '{"do":"ok"}', false],
    ['no content type', { 'x-key': 'k' }, '{"do":"ok"}', false],
  ])('%s: the same answer and log both ways', async (_name, headers, body, taken) => {
    const before = bareCalls;
    const viaExpress = await send(expressUrl, express.lines, 'POST', PATH, { ...headers, ...lengthOf(body) }, body);
    const viaBare = await send(bareUrl, bare.lines, 'POST', PATH, { ...headers, ...lengthOf(body) }, body);
    expect(viaBare).toEqual(viaExpress);
    expect(bareCalls - before).toBe(taken ? 1 : 0);
  });

  it.each([
    ['GET', PATH],
    ['POST', `${PATH}/`],
    ['POST', `${PATH}?a=1`],
    ['POST', '/elsewhere'],
  ])('%s %s goes to the app', async (method, path) => {
    const before = bareCalls;
    const body = '{"do":"ok"}';
    const viaExpress = await send(expressUrl, express.lines, method, path, { ...json, ...lengthOf(body) }, body);
    const viaBare = await send(bareUrl, bare.lines, method, path, { ...json, ...lengthOf(body) }, body);
    expect(viaBare).toEqual(viaExpress);
    expect(bareCalls).toBe(before);
  });

  it('refuses an app that derives ETags from bodies', () => {
    const app = createApp(bare.logger);
    expect(() => serveBareJsonRoutes([], app, createErrorResponder(bare.logger, 'api'), bare.logger)).toThrow(TypeError);
  });

  it('a chunked body goes to the app', async () => {
    const before = bareCalls;
    const viaExpress = await send(expressUrl, express.lines, 'POST', PATH, { ...json, 'transfer-encoding': 'chunked' }, '{"do":"ok"}');
    const viaBare = await send(bareUrl, bare.lines, 'POST', PATH, { ...json, 'transfer-encoding': 'chunked' }, '{"do":"ok"}');
    expect(viaBare).toEqual(viaExpress);
    expect(viaBare.status).toBe(200);
    expect(bareCalls).toBe(before);
  });
});
